// Analyses stored before fields carried their label and placement (label, labelSource, suggestedName,
// optionLabels, pdfMeta.rect / widgets / editable) or their scripts (computed, calculation, scripts,
// unsupportedScripts, and the form's `scripts`) are completed on first read: the file is analysed again, only those keys are taken from
// the new analysis (matched by originalName), and the stored analysis is updated. Names, types and
// options stay exactly as stored, so a template's render contract never changes behind its version
// (a computed field was computed by the form all along: docs/decisions.md, "Computed forms").
import type { Deps } from '../../deps.js';
import { uniqueNames } from '../../pdf/analysis/unique-names.js';
import type { AnalysedField, TemplateAnalysis } from '../../pdf/types.js';
import { loadTemplateBytes } from './template-files.js';
import { parseAnalysis, rememberAnalysis } from './template-view.js';
import { saveTemplateAnalysis, type TemplateRow } from './template-records.js';

/** True when every field has the placement and label keys analyse() now always sets, and scripts were read. */
function hasPlacement(analysis: TemplateAnalysis): boolean {
  return (
    analysis.scripts !== undefined &&
    analysis.fields.every((f) => f.label !== undefined && f.labelSource !== undefined && f.pdfMeta.rect !== undefined)
  );
}

/** The stored analysis with label and placement keys copied from a fresh analysis of the same file. */
export function withPlacement(stored: TemplateAnalysis, fresh: TemplateAnalysis): TemplateAnalysis {
  const byName = new Map(fresh.fields.map((f) => [f.pdfMeta.originalName, f]));
  const fields = stored.fields.map((f): AnalysedField => {
    const now = byName.get(f.pdfMeta.originalName);
    const rect = now?.pdfMeta.rect;
    const widgets = now?.pdfMeta.widgets;
    const editable = now?.pdfMeta.editable;
    return {
      ...f,
      ...labelKeys(f, now),
      ...scriptKeys(now),
      pdfMeta: {
        ...f.pdfMeta,
        // a field the new analysis no longer finds keeps an empty rectangle rather than a guessed one
        rect: rect ?? [0, 0, 0, 0],
        ...(widgets ? { widgets } : {}),
        ...(editable ? { editable } : {}),
      },
    };
  });
  // suggested keys stay unique when a field the new analysis no longer finds falls back to its own name
  const keys = uniqueNames(fields.map((f) => f.suggestedName ?? f.name));
  return {
    ...stored,
    fields: fields.map((f, i) => ({ ...f, suggestedName: keys[i] })),
    scripts: fresh.scripts ?? { calculationOrder: [], document: [] },
  };
}

/** The script keys of the new analysis, each only when set (a field it no longer finds has none). */
function scriptKeys(now: AnalysedField | undefined): Partial<AnalysedField> {
  if (!now) return {};
  const { computed, calculation, scripts, unsupportedScripts } = now;
  return {
    ...(computed ? { computed } : {}),
    ...(calculation ? { calculation } : {}),
    ...(scripts ? { scripts } : {}),
    ...(unsupportedScripts ? { unsupportedScripts } : {}),
  };
}

/** Label, its source, suggested key and option labels of the new analysis, option labels matched by value. */
function labelKeys(stored: AnalysedField, now: AnalysedField | undefined): Partial<AnalysedField> {
  const values = stored.options ?? (stored.type === 'checkbox' ? stored.detail.onStates : undefined);
  const nowValues = now?.options ?? (now?.type === 'checkbox' ? now.detail.onStates : undefined);
  const byValue = new Map(nowValues?.map((v, i) => [v, now?.optionLabels?.[i] ?? v]));
  return {
    label: now?.label ?? null,
    labelSource: now?.labelSource ?? 'none',
    suggestedName: now?.suggestedName ?? stored.name,
    ...(values && now?.optionLabels ? { optionLabels: values.map((v) => byValue.get(v) ?? v) } : {}),
  };
}

/**
 * The template's analysis with label and placement on every field. An old stored analysis costs one
 * re-analysis (through the engine, so the worker pool's limits apply), once per file version.
 */
export async function loadCompleteAnalysis(
  deps: Pick<Deps, 'db' | 'blobs' | 'engine' | 'caches'>,
  row: Pick<TemplateRow, 'id' | 'account_id' | 'analysis' | 'blob_key'>,
): Promise<TemplateAnalysis> {
  const stored = parseAnalysis(deps, row);
  if (hasPlacement(stored)) return stored;
  const fresh = await deps.engine.analyse(await loadTemplateBytes(deps, row), { tenant: row.account_id });
  const complete = withPlacement(stored, fresh);
  // Only while the row still points at this file: a concurrent file replacement has its own analysis.
  await saveTemplateAnalysis(deps.db, row, JSON.stringify(complete));
  rememberAnalysis(deps, row.blob_key, complete);
  return complete;
}
