import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db } from '../../adapters/db/database.js';
import { instanceIsLive } from '../../adapters/db/instances.js';
import { listPage } from '../../adapters/db/paged-list.js';
import { preparedQuery } from '../../adapters/db/prepared-query.js';
import type { Database, RendersTable } from '../../adapters/db/schema.js';
import { renderHasJob } from '../render-jobs/job-records.js';

// The one owner of the `renders` table: every statement on it lives here. A record is account-scoped:
// functions that serve a tenant take its account id into their WHERE. The few that work across
// accounts (the sweeper's, the signed download's) say so in their names and comments.
// `db` may be a transaction wherever a caller needs the statement inside one.
// The statements every render runs are prepared queries (adapters/db/prepared-query.ts): built and
// compiled once, the same builder code and the same account scoping.
// A render counts against its month's quota while pending or completed (deleted or not); the count per
// account and month is `render_usage`, which triggers on this table keep (migration 0006_render_usage),
// in the transaction of each change, whatever makes it.

export type RenderRow = RendersTable;

export type RenderStatus = 'pending' | 'completed' | 'failed';

/** What a failed render records (the quota it held is released: failed renders do not count). */
export interface RenderFailure {
  error_code: string;
  error_message: string;
  duration_ms?: number;
  warnings?: string;
}

const INTERRUPTED = {
  status: 'failed',
  error_code: 'RENDER_FAILED',
  error_message: 'The render was interrupted',
} as const;

// ---- one account's records --------------------------------------------------------------------------

const insertOne = preparedQuery((db, row: RenderRow) => db.insertInto('renders').values(row));

export async function insertRender(db: Db, row: RenderRow): Promise<void> {
  await insertOne(db, row);
}

/** Many records in few statements (a batch's items); ~20 columns a row keeps chunks within parameter bounds. */
export async function insertRenders(db: Db, rows: RenderRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('renders')
      .values(rows.slice(i, i + 100))
      .execute();
}

/** A batch's items in order, whatever their state (deleted and expired ones too: the batch reports them). */
export async function listBatchItemRows(db: Db, accountId: string, batchId: string): Promise<RenderRow[]> {
  return db
    .selectFrom('renders')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('batch_id', '=', batchId)
    .orderBy('batch_index')
    .execute();
}

/** For a WHERE on render_batches: the batch still has an item pending. */
export function batchHasPendingItems(eb: ExpressionBuilder<Database, 'render_batches'>): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('renders')
      .select('renders.id')
      .whereRef('renders.batch_id', '=', 'render_batches.id')
      .where('renders.status', '=', 'pending'),
  );
}

const usageOfMonth = preparedQuery((db, v: { accountId: string; month: string }) =>
  db.selectFrom('render_usage').select('renders').where('account_id', '=', v.accountId).where('month', '=', v.month),
);

/** Renders that count against the monthly quota: reserved or completed, deleted or not; failed ones don't. */
export async function countRendersThisMonth(db: Db, accountId: string, month: string): Promise<number> {
  const { rows } = await usageOfMonth(db, { accountId, month });
  return Number(rows[0]?.renders ?? 0);
}

/** Drops a reservation nothing was attempted for (only while still pending: the sweeper may have acted). */
export async function deletePendingRender(db: Db, accountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('renders')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('status', '=', 'pending')
    .execute();
}

// The two below answer the record as updated (RETURNING, SQLite ≥ 3.35 and PostgreSQL): its event
// needs it, and a second statement to read it back cost a query per render.

/** The render `id` of `accountId`, still pending, updated with `changes` and answered as it now is. */
function settlePending(db: Db, id: string, accountId: string, changes: Partial<RenderRow>) {
  return db
    .updateTable('renders')
    .set(changes)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('status', '=', 'pending')
    .returningAll();
}

const failPending = preparedQuery((db, v: { id: string; accountId: string } & RenderFailure) => {
  const { id, accountId, ...failure } = v;
  return settlePending(db, id, accountId, { status: 'failed', ...failure });
});

/** pending -> failed; the record as it now is, or undefined when it was no longer pending. */
export async function failPendingRender(
  db: Db,
  accountId: string,
  id: string,
  failure: RenderFailure,
): Promise<RenderRow | undefined> {
  return (await failPending(db, { id, accountId, ...failure })).rows[0];
}

/** What a render records of its file when it completes. */
export interface RenderFileRecord {
  blob_key: string;
  file_size: number;
  duration_ms: number;
  warnings: string;
  sha256: string;
  protected: number;
  signed_with: string | null;
}

const completePending = preparedQuery((db, v: { id: string; accountId: string } & RenderFileRecord) => {
  const { id, accountId, ...done } = v;
  return settlePending(db, id, accountId, { status: 'completed', ...done });
});

/** pending -> completed with its file; the record as it now is, or undefined when it was no longer pending (the sweeper gave up on it). */
export async function completePendingRender(
  db: Db,
  accountId: string,
  id: string,
  done: RenderFileRecord,
): Promise<RenderRow | undefined> {
  return (await completePending(db, { id, accountId, ...done })).rows[0];
}

/** A render of this account that is not deleted and not past its retention, in any status. */
export async function findRender(
  db: Db,
  accountId: string,
  id: string,
  now: Date,
  opts: { includePending?: boolean } = {},
): Promise<RenderRow | undefined> {
  let q = db
    .selectFrom('renders')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('expires_at', '>', now.toISOString());
  if (!opts.includePending) q = q.where('status', '!=', 'pending');
  return q.executeTakeFirst();
}

export interface RenderListFilter {
  page: number;
  limit: number;
  templateId?: string;
  /** one status; when absent, `statuses` (default: every status but pending) */
  status?: RenderStatus;
  /** a render id of this list: the page starts just after it */
  startingAfter?: string;
}

/** Newest first (createdAt desc, id desc), not deleted, not expired, every status unless one is asked; with the total. */
export async function listRenderRows(db: Db, accountId: string, f: RenderListFilter, now: Date) {
  let base = db
    .selectFrom('renders')
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('expires_at', '>', now.toISOString());
  if (f.status) base = base.where('status', '=', f.status);
  if (f.templateId) base = base.where('template_id', '=', f.templateId);
  return listPage(base, (q) => q.selectAll(), f);
}

/** The record becomes a tombstone: it keeps counting in its month's usage, its file reference goes. */
export async function tombstoneRender(db: Db, accountId: string, id: string, now: Date): Promise<void> {
  await db
    .updateTable('renders')
    .set({ deleted_at: now.toISOString(), blob_key: null })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
}

// ---- across accounts: recovery, retention, downloads --------------------------------------------------

/**
 * Fails the pending renders whose owner instance is not alive (missing or expired liveness row), never
 * `selfId`'s; only one account's renders of one month when `scope` is given.
 */
export async function failPendingOfDeadOwners(
  db: Db,
  selfId: string,
  now: Date,
  scope?: { accountId: string; month: string },
): Promise<number> {
  const res = scope
    ? (await failDeadOfMonth(db, { selfId, now: now.toISOString(), ...scope })).numAffectedRows
    : (await deadOwnersPending(db, selfId, now.toISOString()).executeTakeFirst()).numUpdatedRows;
  return Number(res ?? 0);
}

/** Pending renders whose owner instance has no live row (missing or expired at `now`), never `selfId`'s. */
function deadOwnersPending(db: Db, selfId: string, now: string) {
  return db
    .updateTable('renders')
    .set(INTERRUPTED)
    .where('status', '=', 'pending')
    .where('owner', 'is not', null)
    .where('owner', '<>', selfId)
    .where((eb) => eb.not(instanceIsLive(eb, eb.ref('renders.owner'), now)));
}

// every reservation runs it for its account's month (see dead-renders.ts)
const failDeadOfMonth = preparedQuery((db, v: { selfId: string; now: string; accountId: string; month: string }) =>
  deadOwnersPending(db, v.selfId, v.now).where('account_id', '=', v.accountId).where('month', '=', v.month),
);

/**
 * Fails every render still pending that was created before `before` (its process died or is stuck),
 * except async and batch renders: their durable job (render_jobs) is re-run instead.
 */
export async function failPendingCreatedBefore(db: Db, before: Date): Promise<number> {
  const res = await db
    .updateTable('renders')
    .set(INTERRUPTED)
    .where('status', '=', 'pending')
    .where('created_at', '<', before.toISOString())
    .where((eb) => eb.not(renderHasJob(eb)))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Up to `limit` renders past their retention and not yet tombstoned, of every account. */
export async function expiredRenders(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('renders')
    .select(['id', 'account_id', 'blob_key'])
    .where('expires_at', '<=', now.toISOString())
    .where('deleted_at', 'is', null)
    .limit(limit)
    .execute();
}

/** Tombstones older than `month` (YYYY-MM) no longer count anywhere: deleted for good. */
export async function purgeTombstonesBefore(db: Db, month: string): Promise<number> {
  const res = await db
    .deleteFrom('renders')
    .where('deleted_at', 'is not', null)
    .where('month', '<', month)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Which of these blob keys a render record points at (orphan sweep). */
export async function referencedRenderBlobs(db: Db, keys: string[]): Promise<Set<string | null>> {
  const live = await db.selectFrom('renders').select('blob_key').where('blob_key', 'in', keys).execute();
  return new Set(live.map((r) => r.blob_key));
}

/**
 * This account's completed renders whose file has this SHA-256, newest first: deleted and expired ones
 * too (the file still proves what was made; the answer says whether the record is still downloadable).
 */
export async function findRendersBySha256(db: Db, accountId: string, sha256: string): Promise<RenderRow[]> {
  return db
    .selectFrom('renders')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .where('status', '=', 'completed')
    .orderBy('created_at', 'desc')
    .limit(10)
    .execute();
}

/** A render by id alone: a signed download link is authorised by its signature, not by an account. */
export async function findRenderForDownload(db: Db, id: string) {
  return db
    .selectFrom('renders')
    .select(['id', 'blob_key', 'template_name', 'expires_at', 'deleted_at', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
}
