import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { formatDate } from '../format.js';

// Webhook endpoints and their deliveries. The page reads fields loosely (names may differ between
// server versions) and says plainly when the plan or the server has no webhooks.

interface Endpoint {
  id: string;
  url: string;
  events?: string[];
  enabledEvents?: string[];
  description?: string;
  disabled?: boolean;
  enabled?: boolean;
  createdAt?: string;
  secret?: string;
}
interface Delivery {
  id: string;
  eventId?: string;
  eventType?: string;
  type?: string;
  status?: string;
  attempts?: number;
  attempt?: number;
  responseStatus?: number | null;
  statusCode?: number | null;
  createdAt?: string;
  nextAttemptAt?: string | null;
}

export function WebhooksPage() {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [unavailable, setUnavailable] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.get<{ data: Endpoint[] }>('/webhook-endpoints').then(
      (r) => setEndpoints(r.data),
      (err) => {
        if (err instanceof ApiError && err.code === 'WEBHOOKS_NOT_ENABLED')
          setUnavailable('Webhooks are not enabled on your plan. Upgrade the plan to be notified of renders.');
        else if (err instanceof ApiError && err.status === 404)
          setUnavailable('This server does not offer webhooks yet.');
        else setError(err);
      },
    );
  }, [reload]);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const list = events
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean);
      const res = await api.send<{ data: Endpoint }>('POST', '/webhook-endpoints', {
        url,
        ...(list.length ? { events: list } : {}),
      });
      setSecret(res.data.secret ?? null);
      setUrl('');
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (ep: Endpoint) => {
    if (!window.confirm(`Delete the webhook endpoint ${ep.url}?`)) return;
    try {
      await api.delete(`/webhook-endpoints/${ep.id}`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section>
      <h1>Webhooks</h1>
      {unavailable ? (
        <p class="notice" role="status">
          {unavailable}
        </p>
      ) : (
        <>
          <p class="lead">
            formcast posts an event to your endpoints when something happens (for example a render completes), signed
            the Standard Webhooks way.
          </p>
          <form class="card stack" onSubmit={create}>
            <label for="wh-url">Endpoint URL</label>
            <input
              id="wh-url"
              type="url"
              required
              placeholder="https://example.com/formcast"
              value={url}
              onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
            />
            <label for="wh-events">Events (optional, comma separated; empty for all)</label>
            <input
              id="wh-events"
              value={events}
              placeholder="render.completed, render.failed"
              onInput={(e) => setEvents((e.target as HTMLInputElement).value)}
            />
            <button type="submit" class="primary">
              Add endpoint
            </button>
          </form>
          {secret && (
            <div class="card secret" role="status">
              <p>
                <strong>Signing secret</strong>, shown once: <code>{secret}</code>
              </p>
            </div>
          )}
          <ErrorText error={error} />
          {endpoints?.length === 0 && <p class="empty">No endpoints yet.</p>}
          {endpoints?.map((ep) => (
            <EndpointCard key={ep.id} endpoint={ep} onDelete={() => remove(ep)} />
          ))}
        </>
      )}
    </section>
  );
}

function EndpointCard({ endpoint: ep, onDelete }: { endpoint: Endpoint; onDelete: () => void }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const events = ep.events ?? ep.enabledEvents ?? [];
  const load = () =>
    api
      .get<{ data: Delivery[] }>(`/webhook-endpoints/${ep.id}/deliveries`)
      .then((r) => setDeliveries(r.data), setError);
  return (
    <article class="card">
      <h2 class="h3">
        <code>{ep.url}</code> {(ep.disabled || ep.enabled === false) && <span class="badge">disabled</span>}
      </h2>
      <p class="muted small">
        {events.length ? events.join(', ') : 'all events'} · created {formatDate(ep.createdAt)} · <code>{ep.id}</code>
      </p>
      <div class="actions">
        <button type="button" onClick={load}>
          {deliveries ? 'Refresh deliveries' : 'Show deliveries'}
        </button>
        <button type="button" class="danger" onClick={onDelete}>
          Delete
        </button>
      </div>
      <ErrorText error={error} />
      {deliveries && deliveries.length === 0 && <p class="empty">No deliveries yet.</p>}
      {deliveries && deliveries.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Deliveries to {ep.url}</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr key={d.id}>
                  <td data-label="When">{formatDate(d.createdAt)}</td>
                  <td data-label="Event">{d.eventType ?? d.type ?? d.eventId ?? '—'}</td>
                  <td data-label="Status">
                    <span class={`badge status-${d.status}`}>{d.status ?? '—'}</span>
                  </td>
                  <td data-label="Attempts">{d.attempts ?? d.attempt ?? '—'}</td>
                  <td data-label="Answer">{d.responseStatus ?? d.statusCode ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
