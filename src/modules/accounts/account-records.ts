import { sql } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';
import type { AccountsTable } from '../../adapters/db/schema.js';

// The one owner of the `accounts` table: every statement on it lives here. (The auth hook's key lookup
// and the delivery worker's attempt read join an account's plan in: see api-key-records.ts and
// webhooks/endpoint-records.ts.) `db` may be a transaction wherever a caller needs one.

export type AccountRow = AccountsTable;

export async function insertAccount(db: Db, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The plan and render defaults of an account (what a background render needs); undefined when it no longer exists. */
export async function findAccountPlan(db: Db, id: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'plan', 'default_locale', 'default_timezone'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Every account, oldest first (operator CLI). */
export async function listAccountRows(db: Db): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().orderBy('created_at', 'asc').execute();
}

/** True when the account exists (and now has `plan`). */
export async function setAccountPlan(db: Db, id: string, plan: string): Promise<boolean> {
  const res = await db.updateTable('accounts').set({ plan }).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

// Quotas are exact under concurrency: a use case that consumes quota runs "lock the account row, count,
// insert" inside one transaction. PostgreSQL serialises on SELECT ... FOR UPDATE (across instances too);
// SQLite serialises every write transaction on its single writer, and Kysely runs ours on one connection.

export async function lockAccount(trx: Db, kind: DbKind, accountId: string): Promise<void> {
  if (kind === 'postgres') {
    await sql`select id from accounts where id = ${accountId} for update`.execute(trx);
  }
}

export type AccountSettingsRow = Pick<AccountsTable, 'default_locale' | 'default_timezone'>;

/** The account's render defaults; undefined when it no longer exists. */
export async function findAccountSettings(db: Db, id: string): Promise<AccountSettingsRow | undefined> {
  return db
    .selectFrom('accounts')
    .select(['default_locale', 'default_timezone'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** True when the account exists (and now has `changes`). */
export async function updateAccountSettings(db: Db, id: string, changes: AccountSettingsRow): Promise<boolean> {
  const res = await db.updateTable('accounts').set(changes).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
