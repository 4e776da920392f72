import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { PlanName } from '../../plans.js';
import { newDeliveryRow } from './fan-out.js';
import { eventPayload } from './payload.js';
import { loadEndpoint, requireWebhooks, toDeliveryView, type WebhookDeliveryView } from './views.js';

export { DELIVERY_STATUSES } from './views.js';

// Deliveries as the account sees them: the list of an endpoint, one delivery with its payload, a manual
// retry, and a test event sent to one endpoint.

type DeliveryDeps = Pick<Deps, 'db' | 'clock' | 'plans'>;
type Account = { id: string; plan: PlanName };

/** Newest first, optionally only one status. */
export async function listDeliveries(
  deps: DeliveryDeps,
  account: Account,
  endpointId: string,
  query: { page: number; limit: number; status?: string },
) {
  requireWebhooks(deps, account.plan);
  await loadEndpoint(deps, account.id, endpointId);
  const base = deps.db
    .selectFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('account_id', '=', account.id)
    .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!));
  const [rows, total] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toDeliveryView), meta: { page: query.page, limit: query.limit, total: Number(total.n) } };
}

async function loadDelivery(deps: Pick<Deps, 'db'>, accountId: string, id: string) {
  const row = await deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
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
  const event = await deps.db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data'])
    .where('id', '=', row.event_id)
    .where('account_id', '=', account.id)
    .executeTakeFirstOrThrow();
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
  const res = await deps.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, completed_at: null })
    .where('id', '=', id)
    .where('account_id', '=', account.id)
    .where((eb) => eb.or([eb('claimed_by', 'is', null), eb('next_attempt_at', '<', now)]))
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) {
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
    await trx
      .insertInto('events')
      .values({
        id: eventId,
        account_id: account.id,
        type: 'webhook.test',
        data: JSON.stringify({ endpointId: endpoint.id, message: 'A test event sent from the formcast API' }),
        created_at: now.toISOString(),
      })
      .execute();
    const row = newDeliveryRow({ eventId, accountId: account.id, type: 'webhook.test' }, endpoint.id, now);
    await trx.insertInto('webhook_deliveries').values(row).execute();
    return toDeliveryView(row);
  });
}
