import { sql } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';
import { listPage, type PageRequest } from '../../adapters/db/paged-list.js';
import { preparedQuery } from '../../adapters/db/prepared-query.js';
import type { WebhookEndpointsTable } from '../../adapters/db/schema.js';
import { notFound } from '../../errors.js';

// The one owner of the `webhook_endpoints` table: every statement on it lives here. The account's use
// cases go through account-scoped functions; the delivery worker's (attempt context, failure streak,
// disabling) work on the endpoint of a claimed delivery, whose account the claim already fixed.
// `db` may be a transaction wherever a caller needs the statement inside one.

export type EndpointRow = WebhookEndpointsTable;

/** What an endpoint's PATCH may set. */
export type EndpointChanges = Partial<
  Pick<EndpointRow, 'url' | 'events' | 'description' | 'enabled' | 'disabled_reason' | 'failing_since' | 'updated_at'>
>;

// ---- one account's endpoints --------------------------------------------------------------------------

export async function insertEndpoint(db: Db, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** An endpoint of this account; another account's id answers exactly like a missing one. */
export async function loadEndpoint(deps: { db: Db }, accountId: string, id: string): Promise<EndpointRow> {
  const row = await deps.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw notFound.webhookEndpoint(id);
  return row;
}

export async function countEndpoints(db: Db, accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** A page of the account's endpoints, newest first. */
export async function listEndpointRows(db: Db, accountId: string, page: PageRequest) {
  return listPage(db.selectFrom('webhook_endpoints').where('account_id', '=', accountId), (q) => q.selectAll(), page);
}

export async function updateEndpointRow(
  db: Db,
  accountId: string,
  id: string,
  changes: EndpointChanges,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
}

/**
 * Seals in a new secret, the current one becoming the previous until `previousUntil`, only while the
 * secret is still `currentSecret` (of two rotations at once one wins). True when it was rotated.
 */
export async function rotateEndpointSecretRow(
  db: Db,
  accountId: string,
  id: string,
  rotation: { currentSecret: string; newSecret: string; previousUntil: string; updatedAt: string },
): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({
      secret: rotation.newSecret,
      previous_secret: rotation.currentSecret,
      previous_secret_expires_at: rotation.previousUntil,
      updated_at: rotation.updatedAt,
    })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('secret', '=', rotation.currentSecret)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function deleteEndpointRow(db: Db, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).where('account_id', '=', accountId).execute();
}

// every event runs it (a render's too): a prepared query (see adapters/db/prepared-query.ts)
const enabledEndpoints = preparedQuery((db, v: { accountId: string }) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('account_id', '=', v.accountId)
    .where('enabled', '=', 1),
);

/** The account's enabled endpoints with their subscribed event types (JSON). */
export async function enabledEndpointsOf(db: Db, accountId: string): Promise<{ id: string; events: string }[]> {
  return (await enabledEndpoints(db, { accountId })).rows;
}

// ---- the endpoint of a claimed delivery (the delivery worker) -----------------------------------------

/**
 * What an attempt sends: the endpoint's URL and secrets, its account's plan and the event (joined in one
 * read); undefined when the endpoint was deleted meanwhile.
 */
export async function loadAttemptContext(db: Db, delivery: { endpointId: string; accountId: string; eventId: string }) {
  return db
    .selectFrom('webhook_endpoints')
    .innerJoin('accounts', 'accounts.id', 'webhook_endpoints.account_id')
    .innerJoin('events', (j) => j.on('events.id', '=', delivery.eventId))
    .select([
      'webhook_endpoints.url',
      'webhook_endpoints.secret',
      'webhook_endpoints.previous_secret',
      'webhook_endpoints.previous_secret_expires_at',
      'accounts.plan',
      'events.id as eventId',
      'events.type',
      'events.created_at',
      'events.data',
    ])
    .where('webhook_endpoints.id', '=', delivery.endpointId)
    .where('webhook_endpoints.account_id', '=', delivery.accountId)
    .executeTakeFirst();
}

/** PostgreSQL: holds the endpoint's row until the transaction ends (SQLite serialises writers anyway). */
export async function lockEndpoint(trx: Db, kind: DbKind, id: string): Promise<void> {
  if (kind === 'postgres') await sql`select id from webhook_endpoints where id = ${id} for update`.execute(trx);
}

/** Whether the endpoint is enabled and since when it has been failing; undefined when deleted. */
export async function endpointHealth(db: Db, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['enabled', 'failing_since'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A success ends the failure streak. */
export async function clearFailingSince(db: Db, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).execute();
}

/** A first failure starts the streak (unless another attempt started it first). */
export async function startFailingSince(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: now.toISOString() })
    .where('id', '=', id)
    .where('failing_since', 'is', null)
    .execute();
}

/** Disabled by the service with `reason`; false when it was already disabled. */
export async function disableEndpoint(db: Db, id: string, reason: string, now: Date): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: reason, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
