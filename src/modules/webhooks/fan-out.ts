import type { Db } from '../../adapters/db/database.js';
import { type DeliveryOrigin, insertDeliveries, newDeliveryRow } from './delivery-records.js';
import { enabledEndpointsOf } from './endpoint-records.js';

// One delivery per (event, endpoint), written in the event's own transaction: the change, its event and
// the deliveries commit together, so a crash can neither lose a delivery nor send one for a rolled-back
// change. The delivery worker (delivery-worker.ts) sends them.

/** Deliveries for the account's enabled endpoints subscribed to the type (or to all, "*"). Returns how many. */
export async function fanOutDeliveries(trx: Db, origin: DeliveryOrigin, now: Date): Promise<number> {
  const endpoints = await enabledEndpointsOf(trx, origin.accountId);
  const targets = endpoints.filter((e) => {
    const events = JSON.parse(e.events) as string[];
    return events.includes('*') || events.includes(origin.type);
  });
  if (targets.length === 0) return 0;
  await insertDeliveries(
    trx,
    targets.map((e) => newDeliveryRow(origin, e.id, now)),
  );
  return targets.length;
}
