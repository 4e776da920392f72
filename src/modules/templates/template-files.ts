import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { BlobNotFoundError } from '../../ports/blob-store.js';
import { loadTemplate } from './template-view.js';

// A template's PDF: read through the server's cache of template files (see Caches in deps.ts).

/**
 * A template's PDF, from the server's cache when it holds it. A file gone from storage (lost, or a
 * restore of the database without its files) is no passing fault: it answers RENDER_FAILED naming the
 * template and what to do, instead of a 500 or a retry that cannot succeed.
 */
export async function loadTemplateBytes(
  deps: Pick<Deps, 'blobs' | 'caches'>,
  template: { id: string; blob_key: string },
): Promise<Uint8Array> {
  const files = deps.caches.templateFiles;
  let bytes = files.get(template.blob_key);
  if (!bytes) {
    bytes = await deps.blobs.get(template.blob_key).catch((err: unknown) => {
      if (!(err instanceof BlobNotFoundError)) throw err;
      throw new AppError(
        'RENDER_FAILED',
        `The PDF file of template ${template.id} is missing from storage: restore it from a backup, or upload it again with PUT /v1/templates/${template.id}/file`,
        { templateId: template.id },
      );
    });
    files.set(template.blob_key, bytes);
  }
  return bytes;
}

/** GET /templates/:id/file: the template's current PDF as uploaded (the dashboard draws its pages). */
export async function getTemplateFile(deps: Pick<Deps, 'db' | 'blobs' | 'caches'>, accountId: string, id: string) {
  const row = await loadTemplate(deps, accountId, id);
  return { bytes: await loadTemplateBytes(deps, row), fileName: row.file_name, version: row.version };
}
