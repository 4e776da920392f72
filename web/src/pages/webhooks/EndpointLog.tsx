import { useEffect, useState } from 'preact/hooks';
import { api, type Page, type WebhookEndpoint, type WebhookEndpointLogEntry } from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
import { formatDate } from '../../format.js';

/** What happened to an endpoint (created, updated, secret rotated, disabled...), newest first. */
export function EndpointLog({ endpoint: ep }: { endpoint: WebhookEndpoint }) {
  const [log, setLog] = useState<WebhookEndpointLogEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api
      .get<Page<WebhookEndpointLogEntry>>(`/webhook-endpoints/${ep.id}/log?limit=100`)
      .then((r) => setLog(r.data), setError);
  }, [ep.id, ep.updatedAt]);
  return (
    <div class="endpoint-log">
      <h4>Log</h4>
      <ErrorText error={error} />
      {log?.length === 0 && <p class="empty">Nothing logged yet.</p>}
      {log && log.length > 0 && (
        <ol class="log" aria-label={`Log of ${ep.url}, newest first`}>
          {log.map((e) => (
            <li key={e.id} data-log={e.type}>
              <time dateTime={e.createdAt}>{formatDate(e.createdAt)}</time> <span class="badge">{e.type}</span>{' '}
              {e.message}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
