import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { listBatchItemRows } from '../renders/render-records.js';
import { findBatch } from './batch-records.js';
import { toBatchView } from './batch-view.js';

/** GET /render-batches/:id: progress, per-item results and, once completed, freshly signed download links. */
export async function getBatch(
  deps: Pick<Deps, 'db' | 'clock' | 'blobs' | 'config' | 'signingKey'>,
  accountId: string,
  id: string,
) {
  const batch = await findBatch(deps.db, accountId, id, deps.clock.now());
  if (!batch) throw notFound.batch(id);
  return toBatchView(deps, batch, await listBatchItemRows(deps.db, accountId, id));
}
