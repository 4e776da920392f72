import type { Db } from '../../adapters/db/database.js';
import { newId } from '../../lib/ids.js';
import { preparedQuery } from '../../adapters/db/prepared-query.js';

// One delivery per (event, endpoint), written in the event's own transaction: the change, its event and
// the deliveries commit together, so a crash can neither lose a delivery nor send one for a rolled-back
// change. The delivery worker (delivery-worker.ts) sends them.

export interface DeliveryOrigin {
  eventId: string;
  accountId: string;
  type: string;
}

export function newDeliveryRow(origin: DeliveryOrigin, endpointId: string, now: Date) {
  const at = now.toISOString();
  return {
    id: newId('whd'),
    account_id: origin.accountId,
    endpoint_id: endpointId,
    event_id: origin.eventId,
    event_type: origin.type,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    claimed_by: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    last_duration_ms: null,
    attempt_log: '[]',
    created_at: at,
    completed_at: null,
  };
}

// every event runs it (a render's too): a prepared query (see adapters/db/prepared-query.ts)
const enabledEndpoints = preparedQuery((db, v: { accountId: string }) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('account_id', '=', v.accountId)
    .where('enabled', '=', 1),
);

/** Deliveries for the account's enabled endpoints subscribed to the type (or to all, "*"). Returns how many. */
export async function fanOutDeliveries(trx: Db, origin: DeliveryOrigin, now: Date): Promise<number> {
  const { rows: endpoints } = await enabledEndpoints(trx, { accountId: origin.accountId });
  const targets = endpoints.filter((e) => {
    const events = JSON.parse(e.events) as string[];
    return events.includes('*') || events.includes(origin.type);
  });
  if (targets.length === 0) return 0;
  await trx
    .insertInto('webhook_deliveries')
    .values(targets.map((e) => newDeliveryRow(origin, e.id, now)))
    .execute();
  return targets.length;
}
