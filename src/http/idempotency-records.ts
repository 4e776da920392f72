import type { Db } from '../adapters/db/database.js';
import type { IdempotencyTable } from '../adapters/db/schema.js';

// The one owner of the `idempotency_keys` table: every statement on it lives here. A key is scoped by
// account and route (`KeyRef`); only the sweeper's purge works across accounts.

export type IdempotencyRow = IdempotencyTable;

/** Which stored key: an account's key on one route. */
export interface KeyRef {
  account_id: string;
  key: string;
  route: string;
}

/** Forgets the key if it was created before `before` (a reused old key starts fresh). */
export async function deleteKeyCreatedBefore(db: Db, ref: KeyRef, before: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', ref.account_id)
    .where('key', '=', ref.key)
    .where('route', '=', ref.route)
    .where('created_at', '<', before)
    .execute();
}

/** Inserts the key in progress; false when it exists already. */
export async function insertKeyIfAbsent(db: Db, row: IdempotencyRow): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'key', 'route']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findKey(db: Db, ref: KeyRef): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', ref.account_id)
    .where('key', '=', ref.key)
    .where('route', '=', ref.route)
    .executeTakeFirst();
}

export async function deleteKey(db: Db, ref: KeyRef): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', ref.account_id)
    .where('key', '=', ref.key)
    .where('route', '=', ref.route)
    .execute();
}

/** Stores the answer to replay. */
export async function saveKeyResponse(db: Db, ref: KeyRef, statusCode: number, response: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response })
    .where('account_id', '=', ref.account_id)
    .where('key', '=', ref.key)
    .where('route', '=', ref.route)
    .execute();
}

/**
 * Moves a key still in progress from `owner` to `newOwner` (restarting its 24 hours at `now`); false
 * when another retry took it first or it has finished meanwhile.
 */
export async function takeOverKey(db: Db, ref: KeyRef, owner: string, newOwner: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('idempotency_keys')
    .set({ owner: newOwner, created_at: now })
    .where('account_id', '=', ref.account_id)
    .where('key', '=', ref.key)
    .where('route', '=', ref.route)
    .where('status_code', 'is', null)
    .where('owner', '=', owner)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Keys of every account created before `before`: expired, deleted (the sweeper). */
export async function purgeKeysCreatedBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
