import type { Db } from '../../adapters/db/database.js';
import type { Deps } from '../../deps.js';
import { newId } from '../../lib/ids.js';
import { loadEndpoint, toLogView } from './views.js';

// The per-endpoint log: what happened to the endpoint itself (created, changed, secret rotated,
// disabled by the user or by the service, enabled again), written in the transaction of the change.

export type EndpointLogType = 'created' | 'updated' | 'secret.rotated' | 'disabled' | 'enabled';

export async function logEndpoint(
  trx: Db,
  entry: { endpointId: string; accountId: string; type: EndpointLogType; message: string },
  now: Date,
): Promise<void> {
  await trx
    .insertInto('webhook_endpoint_log')
    .values({
      id: newId('whl'),
      endpoint_id: entry.endpointId,
      account_id: entry.accountId,
      type: entry.type,
      message: entry.message,
      created_at: now.toISOString(),
    })
    .execute();
}

/**
 * Stop the deliveries still scheduled for an endpoint being disabled: they are failed with `reason` and
 * can be sent again with POST /v1/webhook-deliveries/:id/retry. An attempt in flight finishes normally.
 */
export async function cancelPendingDeliveries(trx: Db, endpointId: string, reason: string, now: Date): Promise<number> {
  const res = await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, completed_at: now.toISOString() })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    // not claimed, or claimed by an attempt whose lease is over (its process died)
    .where((eb) => eb.or([eb('claimed_by', 'is', null), eb('next_attempt_at', '<', now.toISOString())]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Newest first. */
export async function listEndpointLog(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  endpointId: string,
  page: number,
  limit: number,
) {
  await loadEndpoint(deps, accountId, endpointId);
  const [rows, total] = await Promise.all([
    deps.db
      .selectFrom('webhook_endpoint_log')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    deps.db
      .selectFrom('webhook_endpoint_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toLogView), meta: { page, limit, total: Number(total.n) } };
}
