import type { Deps } from '../../deps.js';
import { loadTemplate } from './template-view.js';

// A template's PDF: read through the server's cache of template files (see Caches in deps.ts).

/** A template's PDF by blob key, from the server's cache when it holds it. */
export async function loadTemplateBytes(deps: Pick<Deps, 'blobs' | 'caches'>, blobKey: string): Promise<Uint8Array> {
  const files = deps.caches.templateFiles;
  let bytes = files.get(blobKey);
  if (!bytes) {
    bytes = await deps.blobs.get(blobKey);
    files.set(blobKey, bytes);
  }
  return bytes;
}

/** GET /templates/:id/file: the template's current PDF as uploaded (the dashboard draws its pages). */
export async function getTemplateFile(deps: Pick<Deps, 'db' | 'blobs' | 'caches'>, accountId: string, id: string) {
  const row = await loadTemplate(deps, accountId, id);
  return { bytes: await loadTemplateBytes(deps, row.blob_key), fileName: row.file_name, version: row.version };
}
