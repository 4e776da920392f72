import type { Deps } from '../../deps.js';
import { loadTemplate } from './template-view.js';
import { loadTemplateBytes } from './template-files.js';

/** GET /templates/:id/file: the template's current PDF as uploaded (the dashboard draws its pages). */
export async function getTemplateFile(deps: Pick<Deps, 'db' | 'blobs' | 'caches'>, accountId: string, id: string) {
  const row = await loadTemplate(deps, accountId, id);
  return { bytes: await loadTemplateBytes(deps, row.blob_key), fileName: row.file_name, version: row.version };
}
