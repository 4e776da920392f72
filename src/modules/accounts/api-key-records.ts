import type { Db } from '../../adapters/db/database.js';
import { listPage, type PageRequest } from '../../adapters/db/paged-list.js';
import { preparedQuery } from '../../adapters/db/prepared-query.js';
import type { ApiKeysTable } from '../../adapters/db/schema.js';

// The one owner of the `api_keys` table: every statement on it lives here, scoped by account but for the
// two the auth hook runs on a bearer secret (a key is found by its hash, then touched by its id).

export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Db, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The account's keys, newest first, revoked ones included. */
export async function listAllApiKeyRows(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A page of the account's keys, newest first, revoked ones included. */
export async function listApiKeyRows(db: Db, accountId: string, page: PageRequest) {
  return listPage(db.selectFrom('api_keys').where('account_id', '=', accountId), (q) => q.selectAll(), page);
}

/** API keys held: revoked keys free their slot. */
export async function countActiveKeys(db: Db, accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** When the key of this account was revoked (null: active); undefined when it has no such key. */
export async function findKeyRevocation(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'revoked_at'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function revokeKeyRow(db: Db, accountId: string, id: string, now: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now.toISOString() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
}

// every authenticated request runs it: a prepared query (see adapters/db/prepared-query.ts)
const activeKeyByHash = preparedQuery((db, v: { hash: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id as keyId',
      'accounts.id as accountId',
      'accounts.plan as plan',
      'accounts.name as accountName',
      // the account's render defaults ride along: a render then needs no query of its own for them
      'accounts.default_locale as locale',
      'accounts.default_timezone as timezone',
    ])
    .where('api_keys.hash', '=', v.hash)
    .where('api_keys.revoked_at', 'is', null),
);

/** The active key with this hash and its account (joined); undefined for unknown or revoked keys. */
export async function findActiveKey(db: Db, hash: string) {
  return (await activeKeyByHash(db, { hash })).rows[0];
}

/** Records a use of the key, unless one was recorded less than `everyMs` before `now`. */
export async function touchKeyRow(db: Db, id: string, now: Date, everyMs: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now.toISOString() })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - everyMs).toISOString())]),
    )
    .execute();
}
