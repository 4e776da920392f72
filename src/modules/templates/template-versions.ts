import type { Deps } from '../../deps.js';
import type { FieldMappingReport } from './carry-settings.js';
import { loadTemplate } from './template-view.js';
import { listTemplateVersionPage, type VersionChange } from './template-version-records.js';

// GET /templates/:id/versions: a template's history as template_versions records it (from its first change).

/** What each change stores as its report: the PDF names of the fields a PATCH changed, a new file's mapping, none for `earlier`. */
export type VersionReport = { changed: string[] } | FieldMappingReport | null;

export interface TemplateVersionView {
  version: number;
  change: VersionChange;
  createdAt: string;
  keys: number;
  report: VersionReport;
}

/** Newest first; `startingAfter` (a version number) lists the versions below it. Scoped: another tenant's id is a 404. */
export async function listVersions(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  id: string,
  query: { page: number; limit: number; startingAfter?: number },
) {
  await loadTemplate(deps, accountId, id);
  const { rows, meta } = await listTemplateVersionPage(
    deps.db,
    accountId,
    id,
    { page: query.page, limit: query.limit },
    query.startingAfter,
  );
  const data: TemplateVersionView[] = rows.map((v) => ({
    version: v.version,
    change: v.change,
    createdAt: v.createdAt,
    keys: v.fields.length,
    report: v.report as VersionReport,
  }));
  return { data, meta };
}
