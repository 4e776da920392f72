import type { Deps } from '../../deps.js';
import { referencedRenderBlobs } from '../renders/render-records.js';
import { referencedBatchBlobs } from '../batches/batch-records.js';
import { referencedTemplateBlobs } from '../templates/template-records.js';

// Files are written before the records that point at them, so a crash can leave a file with no record.
// Every blob name starts with a time-ordered id (src/lib/ids.ts), which tells its age without a stat: only
// files older than `olderThanMs` are considered, so an upload in flight is never taken for an orphan.

const ID_TIME = /([0-9a-f]{12})[0-9a-f]{12}\.pdf$/;

function createdAt(key: string): number | undefined {
  const m = ID_TIME.exec(key);
  return m ? parseInt(m[1], 16) : undefined;
}

export async function sweepOrphanBlobs(deps: Pick<Deps, 'db' | 'blobs'>, olderThanMs: number): Promise<number> {
  let removed = 0;
  for (const prefix of ['templates/', 'renders/', 'batches/'] as const) {
    const candidates: string[] = [];
    for await (const key of deps.blobs.list(prefix)) {
      const t = createdAt(key);
      if (t !== undefined && t < olderThanMs) candidates.push(key);
    }
    for (let i = 0; i < candidates.length; i += 200) {
      const batch = candidates.slice(i, i + 200);
      const referenced =
        prefix === 'templates/'
          ? await referencedTemplateBlobs(deps.db, batch)
          : prefix === 'renders/'
            ? await referencedRenderBlobs(deps.db, batch)
            : await referencedBatchBlobs(deps.db, batch);
      for (const key of batch) {
        if (referenced.has(key)) continue;
        await deps.blobs.delete(key);
        removed++;
      }
    }
  }
  return removed;
}
