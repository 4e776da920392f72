import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/schema.js';
import { newId } from '../../lib/ids.js';
import { insertEvent } from './event-records.js';
import { fanOutDeliveries } from '../webhooks/fan-out.js';
import type { EventType } from './event-types.js';

export interface NewEvent {
  accountId: string;
  type: EventType;
  /** the API object the event reports (a Render, a Template, …), serialised as the API would */
  data: unknown;
  /** W3C traceparent of the work publishing it (Tracer.traceparent()): its deliveries' spans join that trace */
  traceparent?: string;
}

/**
 * Record an event in the outbox. Call it with the transaction of the change that causes the event, so
 * the change and its event commit together or not at all (nothing lost on kill -9, nothing sent for a
 * change that rolled back). The webhook deliveries of the event (one per enabled endpoint of the account
 * subscribed to its type) are written in the same transaction. Returns the event id.
 */
export async function publishEvent(trx: Kysely<Database>, event: NewEvent, now: Date): Promise<string> {
  const id = newId('evt');
  await insertEvent(trx, {
    id,
    account_id: event.accountId,
    type: event.type,
    data: JSON.stringify(event.data),
    created_at: now.toISOString(),
  });
  await fanOutDeliveries(
    trx,
    { eventId: id, accountId: event.accountId, type: event.type, traceparent: event.traceparent },
    now,
  );
  return id;
}
