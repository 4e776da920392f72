import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { findRenderTemplate, findTemplate, type RenderTemplate, type TemplateRow } from './template-records.js';
import type {
  AnalysedField,
  CalculationKind,
  DocumentScript,
  AnalysedScripts,
  LabelSource,
  Rect,
  TemplateAnalysis,
  UnsupportedScript,
  WidgetPlacement,
} from '../../pdf/types.js';
import type { TemplateField } from '../render-data/template-field.js';
import { effectiveFields, parseFieldSettings } from './field-settings.js';

export interface TemplateView {
  id: string;
  name: string;
  description?: string;
  fileName: string;
  fileSize: number;
  fieldCount: number;
  isFrozen: boolean;
  version: number;
  /** the render locale and time zone when a request gives none; null: the server's default */
  locale: string | null;
  timezone: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toTemplateView(
  row: Omit<TemplateRow, 'analysis' | 'blob_key' | 'account_id' | 'field_settings'>,
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
    locale: row.default_locale ?? null,
    timezone: row.default_timezone ?? null,
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
  const row = await findTemplate(deps.db, accountId, templateId);
  if (!row) throw notFound.template(templateId);
  return row;
}

/** A template as a render uses it: the row, the engine's analysis, and the fields with their settings. */
export interface LoadedTemplate {
  template: RenderTemplate;
  analysis: TemplateAnalysis;
  fields: TemplateField[];
}

/**
 * A template of this account and its parsed analysis, for a render. The stored analysis (JSON: 2 KB for
 * a small form, 20 KB for Luxembourg's, 68 KB for the 1040) is read only when the cache of parsed
 * analyses lacks this file version; then the whole row is read in one statement, so the analysis is
 * always the one of the file version returned. The field settings are read with the row every time
 * (never cached: a PATCH on any instance is seen by the next render everywhere).
 */
export async function loadTemplateForRender(
  deps: Pick<Deps, 'db' | 'caches'>,
  accountId: string,
  templateId: string,
): Promise<LoadedTemplate> {
  const head = await findRenderTemplate(deps.db, accountId, templateId);
  const cached = head && deps.caches.analyses.get(head.blob_key);
  const row = cached ? head : await loadTemplate(deps, accountId, templateId);
  const analysis = cached ?? parseAnalysis(deps, row as TemplateRow);
  const template: RenderTemplate = {
    id: row.id,
    name: row.name,
    version: row.version,
    blob_key: row.blob_key,
    default_locale: row.default_locale ?? null,
    default_timezone: row.default_timezone ?? null,
  };
  return { template, analysis, fields: effectiveFields(analysis.fields, parseFieldSettings(row.field_settings)) };
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

/** Replaces the cached analysis of a file version (after its stored analysis was completed). */
export function rememberAnalysis(deps: Pick<Deps, 'caches'>, blobKey: string, analysis: TemplateAnalysis): void {
  deps.caches.analyses.set(blobKey, analysis);
}

/** A field of GET /templates/:id/schema. */
export interface PublicField {
  name: string;
  type: AnalysedField['type'];
  required: boolean;
  /** the team's settings (PATCH /templates/:id/fields), each only when set */
  description?: string;
  default?: unknown;
  constant?: unknown;
  hidden?: true;
  maxLength?: number;
  options?: string[];
  /** what a person reads for each option, parallel to options */
  optionLabels?: string[];
  /** the field's tooltip (/TU), else its caption on the page, null when neither */
  label: string | null;
  labelSource: LabelSource;
  /** a readable key made from the label: lower snake_case ASCII, unique in the template */
  suggestedName: string;
  pdfMeta: {
    originalName: string;
    page: number;
    readOnly?: boolean;
    rect: Rect;
    widgets?: WidgetPlacement[];
    editable?: true;
  };
  /** the form computes the value (a calculate script): data for it is refused unless options.calculate is false */
  computed?: true;
  /** computed fields: the kind of calculation and the render keys of the fields it reads, when readable */
  calculation?: { kind: CalculationKind; reads?: string[] };
  scripts?: AnalysedField['scripts'];
  unsupportedScripts?: UnsupportedScript[];
}

/** Render keys by PDF name: how a calculation's reads and the calculation order are shown to callers. */
export function keysByPdfName(fields: readonly TemplateField[]): ReadonlyMap<string, string> {
  return new Map(fields.map((f) => [f.pdfMeta.originalName, f.name]));
}

/** The form's scripts as GET /templates/:id/schema shows them: the calculation order as render keys. */
export function publicScripts(
  scripts: AnalysedScripts | undefined,
  keys: ReadonlyMap<string, string>,
): { calculationOrder: string[]; document: DocumentScript[] } {
  return {
    calculationOrder: (scripts?.calculationOrder ?? []).map((n) => keys.get(n) ?? n),
    document: scripts?.document ?? [],
  };
}

/**
 * The public schema field: the analysis without engine-internal detail. The analysis must carry the
 * placement keys (label, rect): load it with loadCompleteAnalysis, which completes old stored ones.
 */
export function publicField(f: TemplateField, keys: ReadonlyMap<string, string> = new Map()): PublicField {
  const out: PublicField = {
    name: f.name,
    type: f.type,
    required: f.required,
    label: f.label ?? null,
    labelSource: f.labelSource ?? (f.label ? 'tooltip' : 'none'),
    suggestedName: f.suggestedName ?? f.name,
    pdfMeta: {
      originalName: f.pdfMeta.originalName,
      page: f.pdfMeta.page,
      ...(f.pdfMeta.readOnly ? { readOnly: true } : {}),
      rect: f.pdfMeta.rect ?? [0, 0, 0, 0],
      ...(f.pdfMeta.widgets ? { widgets: f.pdfMeta.widgets } : {}),
      ...(f.pdfMeta.editable ? { editable: true as const } : {}),
    },
  };
  if (f.description !== undefined) out.description = f.description;
  if (f.default !== undefined) out.default = f.default;
  if (f.constant !== undefined) out.constant = f.constant;
  if (f.hidden) out.hidden = true;
  if (f.maxLength !== undefined) out.maxLength = f.maxLength;
  if (f.options !== undefined) out.options = f.options;
  // checkboxes with several on-states accept one of them as a string (see docs/decisions.md)
  else if (f.type === 'checkbox' && (f.detail.onStates?.length ?? 0) > 1) out.options = f.detail.onStates;
  if (out.options && f.optionLabels?.length === out.options.length) out.optionLabels = f.optionLabels;
  if (f.computed) out.computed = true;
  if (f.calculation) {
    const { kind, reads } = f.calculation;
    out.calculation = reads ? { kind, reads: reads.map((n) => keys.get(n) ?? n) } : { kind };
  }
  if (f.scripts) out.scripts = f.scripts;
  if (f.unsupportedScripts) out.unsupportedScripts = f.unsupportedScripts;
  return out;
}
