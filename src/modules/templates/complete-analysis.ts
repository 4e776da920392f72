// Analyses stored before fields carried their label and placement (label, pdfMeta.rect / widgets /
// editable) are completed on first read: the file is analysed again, only those keys are taken from
// the new analysis (matched by originalName), and the stored analysis is updated. Names, types and
// options stay exactly as stored, so a template's render contract never changes behind its version.
import type { Deps } from '../../deps.js';
import type { AnalysedField, TemplateAnalysis } from '../../pdf/types.js';
import { loadTemplateBytes } from './template-files.js';
import { parseAnalysis, rememberAnalysis } from './template-view.js';
import { saveTemplateAnalysis, type TemplateRow } from './template-records.js';

/** True when every field has the placement keys analyse() now always sets. */
function hasPlacement(analysis: TemplateAnalysis): boolean {
  return analysis.fields.every((f) => f.label !== undefined && f.pdfMeta.rect !== undefined);
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
      label: now?.label ?? null,
      pdfMeta: {
        ...f.pdfMeta,
        // a field the new analysis no longer finds keeps an empty rectangle rather than a guessed one
        rect: rect ?? [0, 0, 0, 0],
        ...(widgets ? { widgets } : {}),
        ...(editable ? { editable } : {}),
      },
    };
  });
  return { ...stored, fields };
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
  const fresh = await deps.engine.analyse(await loadTemplateBytes(deps, row.blob_key));
  const complete = withPlacement(stored, fresh);
  // Only while the row still points at this file: a concurrent file replacement has its own analysis.
  await saveTemplateAnalysis(deps.db, row, JSON.stringify(complete));
  rememberAnalysis(deps, row.blob_key, complete);
  return complete;
}
