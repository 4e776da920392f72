import type { Deps } from '../../deps.js';
import { loadCompleteAnalysis } from './complete-analysis.js';
import { scannedWarning, toView, type DetectionOutcome } from './detect-new-form.js';
import { effectiveFields, parseFieldSettings } from './field-settings.js';
import { frozen, storeTemplateFile } from './manage-templates.js';
import { loadTemplateBytes } from './template-files.js';
import { loadTemplate, toTemplateView, type TemplateView } from './template-view.js';

/**
 * POST /templates/:id/detect-fields: what a form misses, detected around its own widgets and added as
 * the next version through the path a file replacement takes (fields keep their keys and settings).
 * Nothing detected: no new version, an empty list.
 */
export async function detectMissingFields(
  deps: Deps,
  accountId: string,
  id: string,
): Promise<DetectionOutcome & { template: TemplateView }> {
  // 1. load scoped; a frozen template takes no new version
  const row = await loadTemplate(deps, accountId, id);
  if (row.is_frozen) throw frozen(id);

  // 2. what the form has: widgets to leave alone, keys and PDF names not to reuse
  const analysis = await loadCompleteAnalysis(deps, row);
  const fields = effectiveFields(analysis.fields, parseFieldSettings(row.field_settings));
  const widgets = analysis.fields.flatMap(
    (f) => f.pdfMeta.widgets ?? (f.pdfMeta.rect ? [{ page: f.pdfMeta.page, rect: f.pdfMeta.rect }] : []),
  );
  const keys = [...fields.map((f) => f.name), ...analysis.fields.map((f) => f.pdfMeta.originalName)];

  // 3. detection and the new fields, in the engine
  const bytes = await loadTemplateBytes(deps, row);
  const { result, bytes: withFields } = await deps.engine.detectFields(
    bytes,
    { widgets, keys },
    { tenant: row.account_id },
  );
  const detections = result.detections.map(toView);
  const warnings = [...result.warnings, ...scannedWarning(result)];
  if (!withFields || detections.length === 0) {
    return { detections: [], warnings, template: toTemplateView(row) };
  }

  // 4. stored as the next version, as the field editor stores its result
  const { fieldMapping: _, ...template } = await storeTemplateFile(deps, accountId, row, {
    bytes: withFields,
    fileName: row.file_name,
  });
  return { detections, warnings, template };
}
