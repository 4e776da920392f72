import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';
import { leaseIsFree } from '../../adapters/db/instances.js';
import type { Database, RenderJobsTable } from '../../adapters/db/schema.js';

// The `render_jobs` table: an accepted async render or batch item, its request kept until the render is
// completed or failed (the row is deleted in that transaction). A runner claims a job by writing its
// instance id and a lease expiry; a job is free again when the lease expired or its holder's liveness
// row (adapters/db/instances.ts) is gone: a process killed mid-job has its jobs re-run by another.

export type RenderJobRow = RenderJobsTable;

/** Async single renders first, then batch items. */
export const PRIORITY = { async: 0, batch: 1 } as const;

export async function insertRenderJobs(db: Db, rows: RenderJobRow[]): Promise<void> {
  // ~10 columns a row: chunks stay far below either database's bound on statement parameters
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('render_jobs')
      .values(rows.slice(i, i + 200))
      .execute();
}

/** Claimable: due, and free (never claimed, lease expired, or held by a dead instance other than us). */
function claimable(selfId: string, now: string) {
  return (eb: ExpressionBuilder<Database, 'render_jobs'>): Expression<SqlBool> =>
    eb.and([eb('render_jobs.run_after', '<=', now), leaseIsFree(eb, 'render_jobs', selfId, now)]);
}

/**
 * Claims up to `limit` due jobs for `selfId` until `leaseUntil`, highest priority and oldest first, in one
 * statement: PostgreSQL skips rows another instance is claiming (FOR UPDATE SKIP LOCKED); SQLite runs the
 * statement alone on its single writer. Each claim counts as an attempt.
 */
export async function claimJobs(
  db: Db,
  kind: DbKind,
  selfId: string,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<RenderJobRow[]> {
  const nowIso = now.toISOString();
  let pick = db
    .selectFrom('render_jobs')
    .select('render_jobs.render_id')
    .where(claimable(selfId, nowIso))
    .orderBy('priority')
    .orderBy('run_after')
    .orderBy('render_id')
    .limit(limit);
  if (kind === 'postgres') pick = pick.forUpdate().skipLocked();
  return db
    .updateTable('render_jobs')
    .set((eb) => ({
      lease_owner: selfId,
      lease_expires_at: leaseUntil.toISOString(),
      attempts: eb('attempts', '+', 1),
    }))
    .where('render_id', 'in', pick)
    .where(claimable(selfId, nowIso)) // PostgreSQL re-checks a row it waited for; cheap everywhere
    .returningAll()
    .execute();
}

/** Deletes the job if `selfId` still holds it: true means the caller may record the render's outcome. */
export async function takeJobForFinish(db: Db, renderId: string, selfId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('render_jobs')
    .where('render_id', '=', renderId)
    .where('lease_owner', '=', selfId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Gives a job back (a server-side fault: busy engine, storage down) to be retried after `runAfter`. */
export async function releaseJob(db: Db, renderId: string, selfId: string, runAfter: Date): Promise<void> {
  await db
    .updateTable('render_jobs')
    .set({ lease_owner: null, lease_expires_at: null, run_after: runAfter.toISOString() })
    .where('render_id', '=', renderId)
    .where('lease_owner', '=', selfId)
    .execute();
}

/** Gives back every job `selfId` holds (clean shutdown: another instance may take them at once). */
export async function releaseAllJobs(db: Db, selfId: string): Promise<void> {
  await db
    .updateTable('render_jobs')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('lease_owner', '=', selfId)
    .execute();
}

/** For a WHERE on renders: the render has a durable job (an async render or a batch item not finished). */
export function renderHasJob(eb: ExpressionBuilder<Database, 'renders'>): Expression<SqlBool> {
  return eb.exists(
    eb.selectFrom('render_jobs').select('render_jobs.render_id').whereRef('render_jobs.render_id', '=', 'renders.id'),
  );
}
