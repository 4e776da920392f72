import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { loadRender, toDetail, toListItem } from './render-view.js';
import { listRenderRows, tombstoneRender } from './render-records.js';

type ReadDeps = Pick<Deps, 'db' | 'clock' | 'blobs' | 'config' | 'signingKey'>;

export interface RenderFilter {
  page: number;
  limit: number;
  templateId?: string;
  status?: 'pending' | 'completed' | 'failed';
  /** a render id of this list: the page starts just after it */
  startingAfter?: string;
}

/** Newest first (createdAt desc, id desc), pending ones included; deleted and expired renders are not listed. */
export async function listRenders(deps: ReadDeps, accountId: string, f: RenderFilter) {
  const { rows, meta } = await listRenderRows(deps.db, accountId, f, deps.clock.now());
  return { data: await Promise.all(rows.map((r) => toListItem(deps, r))), meta };
}

export async function getRender(deps: ReadDeps, accountId: string, id: string) {
  return toDetail(deps, await loadRender(deps, accountId, id, { includePending: true }));
}

/**
 * DELETE: the record becomes a tombstone (it still counts in this month's usage, so deleting cannot
 * refill the quota), then the file is removed at once.
 */
export async function deleteRender(deps: ReadDeps, accountId: string, id: string): Promise<void> {
  const row = await loadRender(deps, accountId, id, { includePending: true });
  if (row.status === 'pending')
    throw new AppError('CONFLICT', `Render ${id} is still pending; delete it once it has completed or failed`);
  await tombstoneRender(deps.db, accountId, id, deps.clock.now());
  if (row.blob_key) await deps.blobs.delete(row.blob_key);
}
