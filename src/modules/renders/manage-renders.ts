import type { Deps } from '../../deps.js';
import { loadRender, toDetail, toListItem } from './render-view.js';

type ReadDeps = Pick<Deps, 'db' | 'clock' | 'blobs' | 'config' | 'signingKey'>;

export interface RenderFilter {
  page: number;
  limit: number;
  templateId?: string;
  status?: 'completed' | 'failed';
}

/** Newest first (createdAt desc, id desc); pending, deleted and expired renders are not listed. */
export async function listRenders(deps: ReadDeps, accountId: string, f: RenderFilter) {
  const now = deps.clock.now().toISOString();
  let base = deps.db
    .selectFrom('renders')
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('expires_at', '>', now);
  base = f.status ? base.where('status', '=', f.status) : base.where('status', 'in', ['completed', 'failed']);
  if (f.templateId) base = base.where('template_id', '=', f.templateId);
  const [rows, total] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(f.limit)
      .offset((f.page - 1) * f.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    data: await Promise.all(rows.map((r) => toListItem(deps, r))),
    meta: { page: f.page, limit: f.limit, total: Number(total.n) },
  };
}

export async function getRender(deps: ReadDeps, accountId: string, id: string) {
  return toDetail(deps, await loadRender(deps, accountId, id));
}

/**
 * DELETE: the record becomes a tombstone (it still counts in this month's usage, so deleting cannot
 * refill the quota), then the file is removed at once.
 */
export async function deleteRender(deps: ReadDeps, accountId: string, id: string): Promise<void> {
  const row = await loadRender(deps, accountId, id);
  await deps.db
    .updateTable('renders')
    .set({ deleted_at: deps.clock.now().toISOString(), blob_key: null })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
  if (row.blob_key) await deps.blobs.delete(row.blob_key);
}
