import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';
import { leaseIsFree } from '../../adapters/db/instances.js';
import type { Database, RenderBatchesTable } from '../../adapters/db/schema.js';
import { batchHasPendingItems } from '../renders/render-records.js';

// The `render_batches` table. A batch is `pending` while an item is pending or its combined file is not
// built yet; finishing it (combined file, event) is claimed under a lease like a render job.

export type BatchRow = RenderBatchesTable;

export async function insertBatch(db: Db, row: BatchRow): Promise<void> {
  await db.insertInto('render_batches').values(row).execute();
}

/** A batch of this account, not deleted and not past its retention. */
export async function findBatch(db: Db, accountId: string, id: string, now: Date): Promise<BatchRow | undefined> {
  return db
    .selectFrom('render_batches')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/** A batch by id alone: a signed download link is authorised by its signature, not by an account. */
export async function findBatchForDownload(db: Db, id: string): Promise<BatchRow | undefined> {
  return db.selectFrom('render_batches').selectAll().where('id', '=', id).executeTakeFirst();
}

function finishable(selfId: string, now: string) {
  return (eb: ExpressionBuilder<Database, 'render_batches'>): Expression<SqlBool> =>
    eb.and([
      eb('render_batches.status', '=', 'pending'),
      eb.not(batchHasPendingItems(eb)),
      leaseIsFree(eb, 'render_batches', selfId, now),
    ]);
}

/** Claims one pending batch whose items are all done, for `selfId` until `leaseUntil`. */
export async function claimFinishableBatch(
  db: Db,
  kind: DbKind,
  selfId: string,
  now: Date,
  leaseUntil: Date,
): Promise<BatchRow | undefined> {
  const nowIso = now.toISOString();
  let pick = db
    .selectFrom('render_batches')
    .select('render_batches.id')
    .where(finishable(selfId, nowIso))
    .orderBy('created_at')
    .limit(1);
  if (kind === 'postgres') pick = pick.forUpdate().skipLocked();
  return db
    .updateTable('render_batches')
    .set({ lease_owner: selfId, lease_expires_at: leaseUntil.toISOString() })
    .where('id', 'in', pick)
    .where(finishable(selfId, nowIso))
    .returningAll()
    .executeTakeFirst();
}

/** pending -> completed, if `selfId` still holds it. */
export async function completeBatch(
  db: Db,
  id: string,
  selfId: string,
  done: { combined_blob_key: string | null; combine_error: string | null; completed_at: string },
): Promise<boolean> {
  const res = await db
    .updateTable('render_batches')
    .set({ status: 'completed', lease_owner: null, lease_expires_at: null, ...done })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('lease_owner', '=', selfId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function releaseBatch(db: Db, id: string, selfId: string): Promise<void> {
  await db
    .updateTable('render_batches')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', selfId)
    .execute();
}

/**
 * Keeps `selfId`'s claim until `until` without working on it: a backoff after a server fault. Other
 * instances leave it alone meanwhile (unless this one dies), and this one claims it again once it expires.
 */
export async function deferBatch(db: Db, id: string, selfId: string, until: Date): Promise<void> {
  await db
    .updateTable('render_batches')
    .set({ lease_expires_at: until.toISOString() })
    .where('id', '=', id)
    .where('lease_owner', '=', selfId)
    .execute();
}

/** Up to `limit` batches past their retention and not yet removed, of every account. */
export async function expiredBatches(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('render_batches')
    .select(['id', 'combined_blob_key'])
    .where('expires_at', '<=', now.toISOString())
    .where('deleted_at', 'is', null)
    .limit(limit)
    .execute();
}

export async function tombstoneBatch(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('render_batches')
    .set({ deleted_at: now.toISOString(), combined_blob_key: null })
    .where('id', '=', id)
    .execute();
}

/** Which of these blob keys a batch points at (orphan sweep: a crash between the combined file and its record). */
export async function referencedBatchBlobs(db: Db, keys: string[]): Promise<Set<string | null>> {
  const live = await db
    .selectFrom('render_batches')
    .select('combined_blob_key')
    .where('combined_blob_key', 'in', keys)
    .execute();
  return new Set(live.map((r) => r.combined_blob_key));
}
