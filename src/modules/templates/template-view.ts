import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import type { TemplatesTable } from '../../adapters/db/schema.js';
import type { AnalysedField, TemplateAnalysis } from '../../pdf/types.js';

export interface TemplateView {
  id: string;
  name: string;
  description?: string;
  fileName: string;
  fileSize: number;
  fieldCount: number;
  isFrozen: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type TemplateRow = TemplatesTable;

export function toTemplateView(
  row: Omit<TemplateRow, 'analysis' | 'blob_key' | 'account_id'>,
  withDescription = true,
): TemplateView {
  const view: TemplateView = {
    id: row.id,
    name: row.name,
    description: row.description,
    fileName: row.file_name,
    fileSize: Number(row.file_size),
    fieldCount: row.field_count,
    isFrozen: Boolean(row.is_frozen),
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (!withDescription) delete view.description;
  return view;
}

/** Load a template of this account; another account's id answers exactly like a missing one. */
export async function loadTemplate(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  templateId: string,
): Promise<TemplateRow> {
  const row = await deps.db
    .selectFrom('templates')
    .selectAll()
    .where('id', '=', templateId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw notFound.template(templateId);
  return row;
}

/** A template's stored analysis, parsed once per file version (see Caches in deps.ts). */
export function parseAnalysis(
  deps: Pick<Deps, 'caches'>,
  row: Pick<TemplateRow, 'analysis' | 'blob_key'>,
): TemplateAnalysis {
  const analyses = deps.caches.analyses;
  let analysis = analyses.get(row.blob_key);
  if (!analysis) {
    analysis = JSON.parse(row.analysis) as TemplateAnalysis;
    analyses.set(row.blob_key, analysis);
  }
  return analysis;
}

/** The public schema field: the analysis without engine-internal detail. */
export function publicField(f: AnalysedField): Omit<AnalysedField, 'detail'> {
  const out: Omit<AnalysedField, 'detail'> = {
    name: f.name,
    type: f.type,
    required: f.required,
    pdfMeta: { ...f.pdfMeta },
  };
  if (f.maxLength !== undefined) out.maxLength = f.maxLength;
  if (f.options !== undefined) out.options = f.options;
  // checkboxes with several on-states accept one of them as a string (see docs/decisions.md)
  else if (f.type === 'checkbox' && (f.detail.onStates?.length ?? 0) > 1) out.options = f.detail.onStates;
  return out;
}
