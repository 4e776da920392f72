import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Detection, DetectResult } from '../../pdf/detect/detect.js';
import type { Rect, TemplateAnalysis } from '../../pdf/types.js';

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

export const toView = (d: Detection): DetectionView => ({ ...d });

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
  tenant: string,
): Promise<{ bytes: Uint8Array; analysis: TemplateAnalysis } & DetectionOutcome> {
  const { result, bytes: withFields } = await deps.engine.detectFields(bytes, undefined, { tenant });
  if (!withFields || result.detections.length === 0) throw nothingFound(result);
  const analysis = await deps.engine.analyse(withFields, { tenant });
  return {
    bytes: withFields,
    analysis,
    detections: result.detections.map(toView),
    warnings: [...result.warnings, ...scannedWarning(result)],
  };
}

export const scannedWarning = (r: DetectResult) =>
  r.rasterPages.length === 1
    ? [`page ${r.rasterPages[0]} is a scanned image: nothing was detected there`]
    : r.rasterPages.length > 1
      ? [`pages ${r.rasterPages.join(', ')} are scanned images: nothing was detected there`]
      : [];
