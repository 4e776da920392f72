import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { downloadUrlFor } from '../downloads/download-url.js';
import { findRender, type RenderRow } from './render-records.js';

export type { RenderRow };

/** The fields every view of a render shares, with the download link it is given (null: none). */
function commonFields(row: RenderRow, downloadUrl: string | null) {
  return {
    id: row.id,
    templateId: row.template_id,
    templateName: row.template_name,
    status: row.status,
    fileSize: Number(row.file_size),
    durationMs: row.duration_ms,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    downloadUrl,
    sha256: row.sha256,
    protected: row.protected === 1,
    signed: row.signed_with !== null,
    ...(row.batch_id ? { batchId: row.batch_id, batchIndex: row.batch_index ?? 0 } : {}),
  };
}

/** What a detail adds to a list item: warnings, templateVersion, and the error of a failed render. */
function detailFields(row: RenderRow) {
  return {
    warnings: JSON.parse(row.warnings) as string[],
    templateVersion: row.template_version,
    ...(row.status === 'failed'
      ? { error: { code: row.error_code ?? 'RENDER_FAILED', message: row.error_message ?? 'The render failed' } }
      : {}),
  };
}

/** List item (reference 2.2). `downloadUrl` is null for a failed render, which has no file. */
export async function toListItem(deps: Pick<Deps, 'blobs' | 'config' | 'signingKey' | 'clock'>, row: RenderRow) {
  return commonFields(row, await downloadUrlFor(deps, row));
}

/** GET /renders/:id: the list item plus expiresIn, warnings, templateVersion and error for a failed one. */
export async function toDetail(deps: Pick<Deps, 'blobs' | 'config' | 'signingKey' | 'clock'>, row: RenderRow) {
  const item = await toListItem(deps, row);
  return { ...item, expiresIn: item.downloadUrl ? deps.config.limits.downloadUrlSeconds : 0, ...detailFields(row) };
}

/**
 * The Render of an event (render.completed, render.failed): GET /renders/:id's shape, but with no download
 * link (`downloadUrl` null, `expiresIn` 0): events are stored and redelivered for longer than a link
 * lives, and a live signature must not rest in the database; GET /renders/:id signs a fresh one.
 */
export function renderEventData(row: RenderRow) {
  return { ...commonFields(row, null), expiresIn: 0, ...detailFields(row) };
}

/** A visible render of this account: not deleted, not past its retention; pending ones too when asked. */
export async function loadRender(
  deps: Pick<Deps, 'db' | 'clock'>,
  accountId: string,
  id: string,
  opts: { includePending?: boolean } = {},
): Promise<RenderRow> {
  const row = await findRender(deps.db, accountId, id, deps.clock.now(), opts);
  if (!row) throw notFound.render(id);
  return row;
}
