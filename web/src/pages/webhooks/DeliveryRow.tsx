import type { WebhookDelivery } from '../../api.js';
import { formatDate } from '../../format.js';

/** One delivery as a table row, and under it the body it sends when the user asked to see it. */
export function DeliveryRow({
  delivery: d,
  payload,
  retrying,
  onRetry,
  onTogglePayload,
}: {
  delivery: WebhookDelivery;
  /** the body sent (GET /webhook-deliveries/:id), or null when not shown */
  payload: { body: unknown } | null;
  retrying: boolean;
  onRetry: () => void;
  onTogglePayload: () => void;
}) {
  return (
    <>
      <tr data-delivery={d.id} data-status={d.status}>
        <td data-label="Created">{formatDate(d.createdAt)}</td>
        <td data-label="Event">
          <code>{d.eventType}</code>
        </td>
        <td data-label="Status">
          <span class={`badge status-${d.status}`}>{d.status}</span>
        </td>
        <td data-label="Attempts">{d.attempts}</td>
        <td data-label="Last answer">
          <div>
            {d.lastStatusCode !== null ? (
              <span>HTTP {d.lastStatusCode}</span>
            ) : d.attempts > 0 ? (
              <span class="error">no answer</span>
            ) : (
              '—'
            )}
            {d.lastError && <span class="muted small delivery-error">{errorDetail(d)}</span>}
            {d.attemptLog.length > 1 && <AttemptLog delivery={d} />}
          </div>
        </td>
        <td data-label="Duration">{d.lastDurationMs !== null ? `${d.lastDurationMs} ms` : '—'}</td>
        <td data-label="Next attempt">
          {d.status === 'pending' ? (d.nextAttemptAt ? formatDate(d.nextAttemptAt) : 'now') : '—'}
        </td>
        <td data-label="Actions">
          <span class="row-actions">
            <button
              type="button"
              disabled={retrying}
              aria-label={`Retry the ${d.eventType} delivery of ${formatDate(d.createdAt)}`}
              onClick={onRetry}
            >
              Retry
            </button>
            <button
              type="button"
              aria-expanded={payload !== null}
              aria-label={`Payload of the ${d.eventType} delivery of ${formatDate(d.createdAt)}`}
              onClick={onTogglePayload}
            >
              Payload
            </button>
          </span>
        </td>
      </tr>
      {payload && (
        <tr class="payload-row">
          <td colSpan={8} data-label="Payload">
            <pre data-testid="delivery-payload">{JSON.stringify(payload.body, null, 2)}</pre>
          </td>
        </tr>
      )}
    </>
  );
}

/** The error of the last attempt without the "HTTP 500: " the answer column already says. */
function errorDetail(d: WebhookDelivery): string {
  const prefix = d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}: ` : '';
  return prefix && d.lastError?.startsWith(prefix) ? d.lastError.slice(prefix.length) : (d.lastError ?? '');
}

function AttemptLog({ delivery: d }: { delivery: WebhookDelivery }) {
  return (
    <details class="attempt-log">
      <summary>All {d.attemptLog.length} attempts</summary>
      <ol>
        {d.attemptLog.map((a) => (
          <li key={a.at}>
            <time dateTime={a.at}>{formatDate(a.at)}</time>:{' '}
            {a.statusCode !== null ? `HTTP ${a.statusCode}` : 'no answer'} in {a.durationMs} ms
            {a.error ? ` (${a.error})` : ''}
          </li>
        ))}
      </ol>
    </details>
  );
}
