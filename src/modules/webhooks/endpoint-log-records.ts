import type { Db } from '../../adapters/db/database.js';
import { listPage, type PageRequest } from '../../adapters/db/paged-list.js';
import { newId } from '../../lib/ids.js';

// The one owner of the `webhook_endpoint_log` table: the per-endpoint log of what happened to the
// endpoint itself (created, changed, secret rotated, disabled by the user or by the service, enabled
// again), written in the transaction of the change. Scoped by account but for the purge.

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

/** A page of an endpoint's log, newest first. */
export async function listEndpointLogRows(db: Db, accountId: string, endpointId: string, page: PageRequest) {
  const filtered = db
    .selectFrom('webhook_endpoint_log')
    .where('endpoint_id', '=', endpointId)
    .where('account_id', '=', accountId);
  return listPage(filtered, (q) => q.selectAll(), page);
}

/** An endpoint's log, deleted with it. */
export async function deleteEndpointLog(db: Db, accountId: string, endpointId: string): Promise<void> {
  await db
    .deleteFrom('webhook_endpoint_log')
    .where('endpoint_id', '=', endpointId)
    .where('account_id', '=', accountId)
    .execute();
}

/** Deletes up to `limit` entries of any account created before `cutoff`; how many. */
export async function purgeEndpointLog(db: Db, cutoff: string, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('webhook_endpoint_log')
    .where('id', 'in', (eb) =>
      eb.selectFrom('webhook_endpoint_log').select('id').where('created_at', '<', cutoff).limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
