import type { Db } from '../../adapters/db/database.js';
import { preparedQuery } from '../../adapters/db/prepared-query.js';
import type { EventsTable } from '../../adapters/db/schema.js';
import { eventHasDeliveries } from '../webhooks/delivery-records.js';

// The one owner of the `events` table (the outbox): every statement on it lives here, scoped by account
// but for the purge. The delivery worker reads an event joined to its endpoint (webhooks/endpoint-records.ts).

export type EventRow = EventsTable;

// every render records one: a prepared query (see adapters/db/prepared-query.ts)
const insertOne = preparedQuery((db, row: EventRow) => db.insertInto('events').values(row));

export async function insertEvent(db: Db, row: EventRow): Promise<void> {
  await insertOne(db, row);
}

/** An event of this account, in the columns its webhook payload is built from. */
export async function findEventForPayload(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
}

/** Deletes up to `limit` events of any account created before `cutoff` that no kept delivery refers to; how many. */
export async function purgeEvents(db: Db, cutoff: string, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('events')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('events')
        .select('id')
        .where('created_at', '<', cutoff)
        .where((eb) => eb.not(eventHasDeliveries(eb)))
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
