import type { Deps } from '../../deps.js';
import type { Db } from '../../adapters/db/database.js';
import { failPendingOfDeadOwners } from './render-records.js';

// Renders left `pending` by a process that died (crash, kill -9, OOM): nobody will finish them, and
// while pending they hold quota. Their owner's liveness row (adapters/db/instances.ts) is missing or
// expired, so they are failed at once, which stops them counting. Older rows without an owner are left
// to the sweeper's age rule (housekeeping/sweeper.ts).

/**
 * Fails the pending renders of dead instances (only one account's renders of one month when `scope` is
 * given: what its quota counts, found through the renders_account_month index; `db` may be a
 * transaction). This process's own renders are never touched, whatever its clock says.
 */
export async function failDeadRenders(
  deps: Pick<Deps, 'clock' | 'instanceId'>,
  db: Db,
  scope?: { accountId: string; month: string },
): Promise<number> {
  return failPendingOfDeadOwners(db, deps.instanceId, deps.clock.now(), scope);
}

/**
 * A render still pending after this long belongs to a process that died. The pool's budget starts when a
 * worker takes the job, and a job may first wait behind a full queue (8 per worker, each at most the
 * budget), so allow ten budgets plus a minute.
 */
export function staleAfterMs(deps: Pick<Deps, 'config'>): number {
  return 10 * deps.config.limits.renderTimeoutMs + 60_000;
}
