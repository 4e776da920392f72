import type { PageRequest } from '../../adapters/db/paged-list.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { PlanName } from '../../plans.js';
import { findEventForPayload, insertEvent } from '../events/event-records.js';
import type { WebhookTestData } from '../events/event-data.js';
import { TEST_EVENT_TYPE } from '../events/event-types.js';
import {
  findDelivery,
  insertDeliveries,
  listDeliveryRows,
  newDeliveryRow,
  rescheduleDelivery,
} from './delivery-records.js';
import { loadEndpoint } from './endpoint-records.js';
import { eventPayload } from './payload.js';
import { requireWebhooks } from './require-webhooks.js';
import { toDeliveryView, type WebhookDeliveryView } from './webhook-views.js';

export { DELIVERY_STATUSES } from './webhook-views.js';

// Deliveries as the account sees them: the list of an endpoint, one delivery with its payload, a manual
// retry, and a test event sent to one endpoint.

type DeliveryDeps = Pick<Deps, 'db' | 'clock' | 'plans'>;
type Account = { id: string; plan: PlanName };

/** Newest first, optionally only one status. */
export async function listDeliveries(
  deps: DeliveryDeps,
  account: Account,
  endpointId: string,
  query: PageRequest & { status?: string },
) {
  requireWebhooks(deps, account.plan);
  await loadEndpoint(deps, account.id, endpointId);
  const { rows, meta } = await listDeliveryRows(deps.db, account.id, endpointId, query);
  return { data: rows.map(toDeliveryView), meta };
}

async function loadDelivery(deps: Pick<Deps, 'db'>, accountId: string, id: string) {
  const row = await findDelivery(deps.db, accountId, id);
  if (!row) throw notFound.webhookDelivery(id);
  return row;
}

/** One delivery with the exact payload it sends. */
export async function getDelivery(
  deps: DeliveryDeps,
  account: Account,
  id: string,
): Promise<WebhookDeliveryView & { payload: unknown }> {
  requireWebhooks(deps, account.plan);
  const row = await loadDelivery(deps, account.id, id);
  const event = await findEventForPayload(deps.db, account.id, row.event_id);
  return { ...toDeliveryView(row), payload: JSON.parse(eventPayload(event)) };
}

/**
 * Send a delivery again now, whatever its state, with the same `webhook-id` (receivers deduplicate on
 * it). If that attempt fails, the rest of the retry schedule follows, if any is left. An attempt in
 * flight answers 409.
 */
export async function retryDelivery(deps: DeliveryDeps, account: Account, id: string): Promise<WebhookDeliveryView> {
  requireWebhooks(deps, account.plan);
  const now = deps.clock.now().toISOString();
  if (!(await rescheduleDelivery(deps.db, account.id, id, now))) {
    await loadDelivery(deps, account.id, id); // 404 when it is not ours
    throw new AppError('CONFLICT', `Webhook delivery "${id}" has an attempt in flight; retry when it has finished`);
  }
  return toDeliveryView(await loadDelivery(deps, account.id, id));
}

/**
 * A `webhook.test` event sent to this endpoint only (even when disabled or not subscribed to anything
 * matching), to check a receiver. It is recorded like any event and delivered by the same worker.
 */
export async function sendTestEvent(deps: DeliveryDeps, account: Account, endpointId: string) {
  requireWebhooks(deps, account.plan);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const endpoint = await loadEndpoint({ db: trx }, account.id, endpointId);
    const eventId = newId('evt');
    await insertEvent(trx, {
      id: eventId,
      account_id: account.id,
      type: TEST_EVENT_TYPE,
      data: JSON.stringify(testData(endpoint.id)),
      created_at: now.toISOString(),
    });
    const row = newDeliveryRow({ eventId, accountId: account.id, type: TEST_EVENT_TYPE }, endpoint.id, now);
    await insertDeliveries(trx, [row]);
    return toDeliveryView(row);
  });
}

function testData(endpointId: string): WebhookTestData {
  return { endpointId, message: 'A test event sent from the formcast API' };
}
