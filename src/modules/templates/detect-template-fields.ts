import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Detection, DetectResult } from '../../pdf/detect/detect.js';
import type { Rect, TemplateAnalysis } from '../../pdf/types.js';
import { loadCompleteAnalysis } from './complete-analysis.js';
import { effectiveFields, parseFieldSettings } from './field-settings.js';
import { frozen, storeTemplateFile } from './manage-templates.js';
import { loadTemplateBytes } from './template-files.js';
import { loadTemplate, toTemplateView, type TemplateView } from './template-view.js';

/** A detection as the API lists it: the field's key (its PDF name too), where it is and how sure we are. */
export interface DetectionView {
  key: string;
  type: Detection['type'];
  page: number;
  rect: Rect;
  label: string | null;
  confidence: number;
  cells?: number;
  dateFormat?: string;
  options?: string[];
  widgets?: Rect[];
}

export interface DetectionOutcome {
  detections: DetectionView[];
  warnings: string[];
}

const toView = (d: Detection): DetectionView => ({ ...d });

/**
 * Scanned pages give nothing to detect (OCR is out of scope): an error naming them, rather than a
 * template without fields. A file with neither scans nor anything detected is no form either.
 */
function nothingFound(result: DetectResult): AppError {
  if (result.rasterPages.length > 0) {
    const list = result.rasterPages.join(', ');
    return new AppError(
      'INVALID_PDF',
      `No form fields could be detected: page${result.rasterPages.length > 1 ? 's' : ''} ${list} ${result.rasterPages.length > 1 ? 'are' : 'is'} a scanned image without text or drawn lines (text recognition is not offered)`,
      { pages: result.rasterPages, reason: 'scanned' },
    );
  }
  return new AppError(
    'INVALID_PDF',
    'No form fields could be detected: the pages have no boxes, lines or check boxes to write in',
    { pages: [], reason: 'nothing_detected' },
  );
}

/**
 * POST /templates with detectFields=true, for a file without a form: its fields detected and added (in
 * the engine), the new file analysed. Answers what createTemplate stores instead of the upload.
 */
export async function detectNewForm(
  deps: Deps,
  bytes: Uint8Array,
): Promise<{ bytes: Uint8Array; analysis: TemplateAnalysis } & DetectionOutcome> {
  const { result, bytes: withFields } = await deps.engine.detectFields(bytes);
  if (!withFields || result.detections.length === 0) throw nothingFound(result);
  const analysis = await deps.engine.analyse(withFields);
  return {
    bytes: withFields,
    analysis,
    detections: result.detections.map(toView),
    warnings: [...result.warnings, ...scannedWarning(result)],
  };
}

const scannedWarning = (r: DetectResult) =>
  r.rasterPages.length > 0 ? [`pages ${r.rasterPages.join(', ')} are scanned images: nothing was detected there`] : [];

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
  const bytes = await loadTemplateBytes(deps, row.blob_key);
  const { result, bytes: withFields } = await deps.engine.detectFields(bytes, { widgets, keys });
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
