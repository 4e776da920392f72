import type { WebhookDelivery } from '../../api.js';
import { DeliveryRow } from './DeliveryRow.js';

/** One page of an endpoint's deliveries, newest first, with the payload the user opened under its row. */
export function DeliveriesTable({
  url,
  deliveries,
  payload,
  retrying,
  onRetry,
  onTogglePayload,
}: {
  /** the endpoint's URL, for the table's caption */
  url: string;
  deliveries: WebhookDelivery[];
  payload: { id: string; body: unknown } | null;
  /** the id of the delivery being retried */
  retrying: string | null;
  onRetry: (d: WebhookDelivery) => void;
  onTogglePayload: (d: WebhookDelivery) => void;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Deliveries to {url}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Duration</th>
            <th scope="col">Next attempt</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <DeliveryRow
              key={d.id}
              delivery={d}
              payload={payload?.id === d.id ? payload : null}
              retrying={retrying === d.id}
              onRetry={() => onRetry(d)}
              onTogglePayload={() => onTogglePayload(d)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
