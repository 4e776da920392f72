// Detection turned into a form: every detection becomes a real AcroForm field through the field
// editor (edit/), with its appearance, /DA font and, for a comb, /MaxLen. One call so that a worker
// reads the file once for both steps and sends back one answer.
import { editFields } from '../edit/edit-fields.js';
import type { EditLimits } from '../limits.js';
import type { FieldEdit, NewField } from '../types.js';
import { detectFields, type Detection, type DetectLimits, type DetectResult, type ExistingForm } from './detect.js';

export interface DetectedForm {
  result: DetectResult;
  /** the PDF with the detected fields added; null when nothing was detected */
  bytes: Uint8Array | null;
}

/** The field editor's "add" for a detection; its key is the new field's PDF name. */
function toNewField(d: Detection): NewField {
  const base = { name: d.key };
  switch (d.type) {
    case 'radio':
      return {
        ...base,
        type: 'radio',
        widgets: (d.widgets ?? [d.rect]).map((rect) => ({ page: d.page, rect })),
        options: d.options ?? (d.widgets ?? [d.rect]).map((_, i) => String(i + 1)),
      };
    case 'comb':
      return { ...base, type: 'comb', page: d.page, rect: d.rect, cells: d.cells ?? 1 };
    case 'date':
      return { ...base, type: 'date', page: d.page, rect: d.rect, dateFormat: d.dateFormat ?? 'dd/mm/yyyy' };
    default:
      return { ...base, type: d.type, page: d.page, rect: d.rect };
  }
}

export async function detectForm(
  bytes: Uint8Array,
  existing?: ExistingForm,
  limits?: { detect?: Partial<DetectLimits>; edit?: Partial<EditLimits> },
): Promise<DetectedForm> {
  const result = await detectFields(bytes, existing, limits?.detect);
  if (result.detections.length === 0) return { result, bytes: null };
  const edits: FieldEdit[] = result.detections.map((d) => ({ op: 'add', field: toNewField(d) }));
  // as many edits as detections: the editor's per-request cap is for people, not for this
  const edited = await editFields(bytes, edits, { ...limits?.edit, maxEdits: Math.max(edits.length, 1) });
  return { result, bytes: edited };
}
