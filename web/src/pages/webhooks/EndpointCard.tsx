import { useState } from 'preact/hooks';
import { api, type WebhookEndpoint, type WebhookEndpointWithSecret } from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
import { Deliveries } from './Deliveries.js';
import { EndpointLog } from './EndpointLog.js';
import { EndpointSummary } from './EndpointSummary.js';

/**
 * One endpoint: what it is, its actions (test event, enable or disable, rotate the secret, delete) and the
 * panels of its deliveries and its log, one open at a time.
 */
export function EndpointCard({
  endpoint: ep,
  onChanged,
  onRotated,
  onDeleted,
}: {
  endpoint: WebhookEndpoint;
  onChanged: () => void;
  onRotated: (e: WebhookEndpointWithSecret) => void;
  onDeleted: () => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [panel, setPanel] = useState<'deliveries' | 'log' | null>(null);
  const [deliveriesKey, setDeliveriesKey] = useState(0);
  const [message, setMessage] = useState('');
  const titleId = `wh-${ep.id}`;

  const act = async (fn: () => Promise<void>) => {
    setError(null);
    setMessage('');
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const setEnabled = (enabled: boolean) =>
    act(async () => {
      await api.send('PATCH', `/webhook-endpoints/${ep.id}`, { enabled });
      onChanged();
    });
  const rotate = () => {
    if (
      !window.confirm(
        `Rotate the signing secret of ${ep.url}? The new secret is shown once; the current one keeps signing for 24 hours.`,
      )
    )
      return;
    return act(async () => {
      const res = await api.send<{ data: WebhookEndpointWithSecret }>(
        'POST',
        `/webhook-endpoints/${ep.id}/rotate-secret`,
      );
      onRotated(res.data);
    });
  };
  const remove = () => {
    if (!window.confirm(`Delete the webhook endpoint ${ep.url}, with its deliveries and log? This cannot be undone.`))
      return;
    return act(async () => {
      await api.delete(`/webhook-endpoints/${ep.id}`);
      onDeleted();
    });
  };
  const test = () =>
    act(async () => {
      await api.send('POST', `/webhook-endpoints/${ep.id}/test`);
      setMessage('Test event queued: it shows in the deliveries below.');
      setPanel('deliveries');
      setDeliveriesKey((n) => n + 1);
    });

  return (
    <article class="card endpoint" aria-labelledby={titleId} data-endpoint={ep.id}>
      <h3 id={titleId} class="endpoint-url">
        <code>{ep.url}</code>{' '}
        {ep.enabled ? (
          <span class="badge status-succeeded" data-testid="endpoint-state">
            enabled
          </span>
        ) : (
          <span class="badge status-failed" data-testid="endpoint-state">
            disabled
          </span>
        )}
      </h3>
      <EndpointSummary endpoint={ep} />
      <div class="actions">
        <button type="button" disabled={busy} onClick={test}>
          Send test event
        </button>
        <button type="button" disabled={busy} onClick={() => setEnabled(!ep.enabled)}>
          {ep.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" disabled={busy} onClick={rotate}>
          Rotate secret
        </button>
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          Delete
        </button>
      </div>
      <p class="small" role="status">
        {message}
      </p>
      <ErrorText error={error} />
      <div class="actions panel-toggles">
        <button
          type="button"
          aria-expanded={panel === 'deliveries'}
          aria-controls={`${titleId}-panel`}
          onClick={() => setPanel(panel === 'deliveries' ? null : 'deliveries')}
        >
          {panel === 'deliveries' ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <button
          type="button"
          aria-expanded={panel === 'log'}
          aria-controls={`${titleId}-panel`}
          onClick={() => setPanel(panel === 'log' ? null : 'log')}
        >
          {panel === 'log' ? 'Hide log' : 'Show log'}
        </button>
      </div>
      <div id={`${titleId}-panel`}>
        {panel === 'deliveries' && <Deliveries key={deliveriesKey} endpoint={ep} />}
        {panel === 'log' && <EndpointLog endpoint={ep} />}
      </div>
    </article>
  );
}
