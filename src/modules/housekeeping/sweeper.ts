import type { Deps } from '../../deps.js';
import { IDEMPOTENCY_TTL_MS } from '../../http/idempotency.js';
import { purgeKeysCreatedBefore } from '../../http/idempotency-records.js';
import { sweepOrphanBlobs } from './orphans.js';
import { acquireLease, leaseHolder, releaseLease } from './leases.js';
import { failDeadRenders, staleAfterMs } from '../renders/dead-renders.js';
import {
  expiredRenders,
  failPendingCreatedBefore,
  purgeTombstonesBefore,
  tombstoneRender,
} from '../renders/render-records.js';
import { expiredBatches, tombstoneBatch } from '../batches/batch-records.js';

// The retention sweeper: removes the files (and hides the records) of renders past `expires_at`, fails
// renders left pending by a crash, purges old tombstones and orphan files. Any instance may run it; a
// lease row in the database makes sure one sweep runs at a time across instances. Everything it needs is
// in the database, so it survives restarts: a render is never removed before its own expires_at.
// The lease is held only while a sweep runs (and released on shutdown), so a restarted instance sweeps
// at once. Renders left pending by a dead process are recovered by their own, faster loop (every
// minute at most, whatever SWEEP_INTERVAL_MS): they hold quota until then.

const LEASE = 'retention-sweeper';
const BATCH = 500;

export interface SweepResult {
  expired: number;
  stalePending: number;
  purged: number;
  orphans: number;
}

type SweepDeps = Pick<Deps, 'db' | 'clock' | 'blobs' | 'config' | 'log' | 'instanceId' | 'tracer'>;

/** Longest wait between two recoveries of renders left pending by a dead process. */
const RECOVER_EVERY_MS = 60_000;

export async function sweepOnce(deps: SweepDeps, holder = leaseHolder(deps)): Promise<SweepResult | null> {
  if (!(await acquireLease(deps, LEASE, holder, 5 * 60_000))) return null;
  try {
    // the root of a trace of its own (no request asked for it), made only by the instance holding the lease
    return await deps.tracer.inBackground('housekeeping.sweep', {}, null, async (annotate) => {
      const result = await sweepLeased(deps);
      annotate({
        'formcast.sweep.expired': result.expired,
        'formcast.sweep.stale_pending': result.stalePending,
        'formcast.sweep.purged': result.purged,
        'formcast.sweep.orphans': result.orphans,
      });
      return result;
    });
  } finally {
    await releaseLease(deps, LEASE, holder).catch((err) =>
      deps.log.warn({ err }, 'could not release the sweeper lease'),
    );
  }
}

async function sweepLeased(deps: SweepDeps): Promise<SweepResult> {
  const now = deps.clock.now();
  const result: SweepResult = { expired: 0, stalePending: 0, purged: 0, orphans: 0 };

  // 1. expired renders: tombstone first, then delete the file
  for (;;) {
    const rows = await expiredRenders(deps.db, now, BATCH);
    for (const r of rows) {
      await tombstoneRender(deps.db, r.account_id, r.id, now);
      if (r.blob_key) await deps.blobs.delete(r.blob_key);
      result.expired++;
    }
    if (rows.length < BATCH) break;
  }

  // 1b. expired batches: the same, for their combined file (item files went with their renders)
  for (;;) {
    const rows = await expiredBatches(deps.db, now, BATCH);
    for (const b of rows) {
      await tombstoneBatch(deps.db, b.id, now);
      if (b.combined_blob_key) await deps.blobs.delete(b.combined_blob_key);
      result.expired++;
    }
    if (rows.length < BATCH) break;
  }

  // 2. renders left pending by a dead process: fail them, which releases their quota. Those of a known
  // dead owner at once; any other (no owner recorded, or an owner alive but stuck) by age.
  result.stalePending = await failDeadRenders(deps, deps.db);
  result.stalePending += await failPendingCreatedBefore(deps.db, new Date(now.getTime() - staleAfterMs(deps)));

  // 3. tombstones only matter for the current month's quota; drop them after two months
  const purgeBefore = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  result.purged = await purgeTombstonesBefore(deps.db, purgeBefore);

  // 4. idempotency keys are remembered for 24 hours
  await purgeKeysCreatedBefore(deps.db, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString());

  // 5. files no record points at (a crash between writing a file and its record)
  result.orphans = await sweepOrphanBlobs(deps, now.getTime() - staleAfterMs(deps));
  // and the temp files of writes a crash cut (a render's output is created while its worker fills)
  result.orphans += await deps.blobs.sweepUnfinished(staleAfterMs(deps));

  if (result.expired || result.stalePending || result.purged || result.orphans)
    deps.log.info(result, 'retention sweep');
  return result;
}

/**
 * Run the sweeper now and then every `sweepIntervalMs`, and the recovery of dead processes' pending
 * renders now and then every minute (or sweep interval, if shorter); returns a stop function, which
 * also gives the sweeper lease back.
 */
export function startSweeper(deps: SweepDeps): () => Promise<void> {
  const holder = leaseHolder(deps);
  let running: Promise<unknown> = Promise.resolve();
  let recovering: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = sweepOnce(deps, holder).catch((err) => deps.log.error({ err }, 'retention sweep failed'));
  };
  const recover = () => {
    recovering = failDeadRenders(deps, deps.db)
      .then((n) => n && deps.log.info({ stalePending: n }, 'failed renders of a dead process'))
      .catch((err) => deps.log.error({ err }, 'recovery of interrupted renders failed'));
  };
  tick();
  recover();
  const timer = setInterval(tick, deps.config.limits.sweepIntervalMs);
  const recoverTimer = setInterval(recover, Math.min(RECOVER_EVERY_MS, deps.config.limits.sweepIntervalMs));
  timer.unref();
  recoverTimer.unref();
  return async () => {
    clearInterval(timer);
    clearInterval(recoverTimer);
    await Promise.all([running, recovering]);
    await releaseLease(deps, LEASE, holder).catch((err) =>
      deps.log.warn({ err }, 'could not release the sweeper lease'),
    );
  };
}
