import type { Deps } from '../../deps.js';
import type { Db } from '../../adapters/db/database.js';

// Renders left `pending` by a process that died (crash, kill -9, OOM): nobody will finish them, and
// while pending they hold quota. Their owner's liveness row (adapters/db/instances.ts) is missing or
// expired, so they are failed at once, which stops them counting. Older rows without an owner are left
// to the sweeper's age rule (retention.ts).

export const INTERRUPTED = {
  status: 'failed',
  error_code: 'RENDER_FAILED',
  error_message: 'The render was interrupted',
} as const;

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
  const now = deps.clock.now().toISOString();
  let q = db
    .updateTable('renders')
    .set(INTERRUPTED)
    .where('status', '=', 'pending')
    .where('owner', 'is not', null)
    .where('owner', '<>', deps.instanceId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('instances')
            .select('instances.id')
            .whereRef('instances.id', '=', 'renders.owner')
            .where('instances.expires_at', '>=', now),
        ),
      ),
    );
  if (scope) q = q.where('account_id', '=', scope.accountId).where('month', '=', scope.month);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}
