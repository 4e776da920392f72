import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { IDEMPOTENCY_TTL_MS } from '../../http/idempotency.js';
import { sweepOrphanBlobs } from './orphans.js';

// The retention sweeper: removes the files (and hides the records) of renders past `expires_at`, fails
// renders left pending by a crash, purges old tombstones and orphan files. Any instance may run it; a
// lease row in the database makes sure one sweep runs at a time across instances. Everything it needs is
// in the database, so it survives restarts: a render is never removed before its own expires_at.

const LEASE = 'retention-sweeper';
const BATCH = 500;

export interface SweepResult {
  expired: number;
  stalePending: number;
  purged: number;
  orphans: number;
}

type SweepDeps = Pick<Deps, 'db' | 'clock' | 'blobs' | 'config' | 'log'>;

export async function acquireLease(deps: Pick<Deps, 'db' | 'clock'>, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const now = deps.clock.now();
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  // Take a free or expired lease; the conditional update is atomic in both databases.
  await deps.db.insertInto('leases').values({ name, holder: '', expires_at: '' }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const res = await deps.db
    .updateTable('leases')
    .set({ holder, expires_at: expires })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('expires_at', '<', now.toISOString()), eb('holder', '=', holder)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * A render still pending after this long belongs to a process that died. The pool's budget starts when a
 * worker takes the job, and a job may first wait behind a full queue (8 per worker, each at most the
 * budget), so allow ten budgets plus a minute.
 */
export function staleAfterMs(deps: Pick<Deps, 'config'>): number {
  return 10 * deps.config.limits.renderTimeoutMs + 60_000;
}

export async function sweepOnce(deps: SweepDeps, holder = randomUUID()): Promise<SweepResult | null> {
  if (!(await acquireLease(deps, LEASE, holder, 5 * 60_000))) return null;
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const result: SweepResult = { expired: 0, stalePending: 0, purged: 0, orphans: 0 };

  // 1. expired renders: tombstone first, then delete the file
  for (;;) {
    const rows = await deps.db.selectFrom('renders').select(['id', 'blob_key']).where('expires_at', '<=', nowIso).where('deleted_at', 'is', null).limit(BATCH).execute();
    for (const r of rows) {
      await deps.db.updateTable('renders').set({ deleted_at: nowIso, blob_key: null }).where('id', '=', r.id).execute();
      if (r.blob_key) await deps.blobs.delete(r.blob_key);
      result.expired++;
    }
    if (rows.length < BATCH) break;
  }

  // 2. renders left pending by a dead process: fail them, which releases their quota
  const staleBefore = new Date(now.getTime() - staleAfterMs(deps)).toISOString();
  const stale = await deps.db
    .updateTable('renders')
    .set({ status: 'failed', error_code: 'RENDER_FAILED', error_message: 'The render was interrupted' })
    .where('status', '=', 'pending')
    .where('created_at', '<', staleBefore)
    .executeTakeFirst();
  result.stalePending = Number(stale.numUpdatedRows);

  // 3. tombstones only matter for the current month's quota; drop them after two months
  const purgeBefore = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const purged = await deps.db.deleteFrom('renders').where('deleted_at', 'is not', null).where('month', '<', purgeBefore).executeTakeFirst();
  result.purged = Number(purged.numDeletedRows);

  // 4. idempotency keys are remembered for 24 hours
  await deps.db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString()).execute();

  // 5. files no record points at (a crash between writing a file and its record)
  result.orphans = await sweepOrphanBlobs(deps, now.getTime() - staleAfterMs(deps));

  if (result.expired || result.stalePending || result.purged || result.orphans) deps.log.info(result, 'retention sweep');
  return result;
}

/** Run the sweeper now and then every `sweepIntervalMs`; returns a stop function. */
export function startSweeper(deps: SweepDeps): () => Promise<void> {
  const holder = randomUUID();
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = sweepOnce(deps, holder).catch((err) => deps.log.error({ err }, 'retention sweep failed'));
  };
  tick();
  const timer = setInterval(tick, deps.config.limits.sweepIntervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
