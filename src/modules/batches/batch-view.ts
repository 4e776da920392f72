import type { Deps } from '../../deps.js';
import { signedDownloadUrl } from '../downloads/signing.js';
import type { RenderRow } from '../renders/render-records.js';
import type { BatchRow } from './batch-records.js';

// The batch as the API shows it (GET /render-batches/:id) and as its event carries it.

function itemView(r: RenderRow) {
  return {
    index: r.batch_index ?? 0,
    renderId: r.id,
    status: r.status,
    error: r.status === 'failed' ? { code: r.error_code ?? 'RENDER_FAILED', message: r.error_message ?? '' } : null,
  };
}

function counts(items: RenderRow[]) {
  const c = { total: items.length, pending: 0, completed: 0, failed: 0 };
  for (const r of items) {
    if (r.status === 'pending') c.pending++;
    else if (r.status === 'completed') c.completed++;
    else c.failed++;
  }
  return c;
}

function base(batch: BatchRow, items: RenderRow[]) {
  return {
    id: batch.id,
    status: batch.status,
    combine: batch.combine === 1,
    /** the combined file is signed (batch `sign` with `combine`) */
    signed: batch.signed_with !== null,
    progress: counts(items),
    createdAt: batch.created_at,
    completedAt: batch.completed_at,
    expiresAt: batch.expires_at,
    combineError: batch.combine_error,
    items: items.map(itemView),
  };
}

/** The event's batch: no download links (events outlive them; GET /render-batches/:id signs fresh ones). */
export function batchEventData(batch: BatchRow, items: RenderRow[]) {
  return { ...base(batch, items), combinedDownloadUrl: null, zipDownloadUrl: null, expiresIn: 0 };
}

/** File names inside download links: `<batch id>.pdf` (combined), `<batch id>.zip` (every item's file). */
const batchFileId = (batchId: string, ext: 'pdf' | 'zip') => `${batchId}.${ext}`;

export async function toBatchView(
  deps: Pick<Deps, 'blobs' | 'config' | 'signingKey' | 'clock'>,
  batch: BatchRow,
  items: RenderRow[],
) {
  const seconds = deps.config.limits.downloadUrlSeconds;
  const expires = Math.floor(deps.clock.now().getTime() / 1000) + seconds;
  const sign = (fileId: string) => signedDownloadUrl(deps.config.publicUrl, deps.signingKey, fileId, expires);
  const hasFiles = batch.status === 'completed' && items.some((r) => r.status === 'completed' && r.blob_key);
  let combined: string | null = null;
  if (batch.combined_blob_key) {
    combined =
      (await deps.blobs.presignedUrl(batch.combined_blob_key, seconds, batchFileId(batch.id, 'pdf'))) ??
      sign(batchFileId(batch.id, 'pdf'));
  }
  return {
    ...base(batch, items),
    combinedDownloadUrl: combined,
    zipDownloadUrl: hasFiles ? sign(batchFileId(batch.id, 'zip')) : null,
    expiresIn: combined || hasFiles ? seconds : 0,
  };
}
