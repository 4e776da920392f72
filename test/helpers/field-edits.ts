// A sample editing session shared by field-edit.test.ts and the reader matrix: on page 1, one new field
// of every type in a column at the bottom left (inside every corpus page), one existing text field moved
// there and resized, and another existing text field deleted. Plus the values that fill the new fields.
import type { AnalysedField, FieldEdit, FillValue, Rect, TemplateAnalysis } from '../../src/pdf/types.js';

/** Names of the new fields: a prefix no corpus form uses. */
export const NEW = {
  text: 'ed_text',
  multiline: 'ed_notes',
  number: 'ed_amount',
  date: 'ed_date',
  comb: 'ed_zip',
  checkbox: 'ed_agree',
  dropdown: 'ed_country',
  radio: 'ed_choice',
  signature: 'ed_signature',
} as const;

/**
 * Where the moved field goes: page 1, above the new fields, 10% larger (its shape kept: a widget drawn
 * rotated by /MK /R stays readable). Inside every corpus page.
 */
export function movedRect(field: AnalysedField): Rect {
  const [x1, y1, x2, y2] = field.pdfMeta.rect!;
  const grow = (n: number) => Math.round(n * 1.1 * 1000) / 1000;
  return [36, 420, 36 + Math.min(grow(x2 - x1), 500), 420 + Math.min(grow(y2 - y1), 300)];
}

/** The radio group's two buttons. */
export const RADIO_RECTS: Rect[] = [
  [40, 300, 54, 314],
  [70, 300, 84, 314],
];

export interface SampleEdits {
  edits: FieldEdit[];
  /** the existing field moved to movedRect() on page 1 */
  moved?: AnalysedField;
  /** the existing field deleted */
  deleted?: AnalysedField;
}

/** Plain single-widget text fields a caller can fill: the candidates to move and to delete. */
const plainText = (f: AnalysedField) =>
  f.type === 'text' &&
  !f.pdfMeta.readOnly &&
  !f.pdfMeta.widgets &&
  !f.detail.comb &&
  !f.detail.multiline &&
  !f.detail.password &&
  f.detail.inAcroFormFields &&
  f.maxLength === undefined;

export function sampleEdits(analysis?: TemplateAnalysis): SampleEdits {
  const candidates = analysis?.fields.filter(plainText) ?? [];
  const moved = candidates[0];
  const deleted = candidates.at(-1) !== moved ? candidates.at(-1) : undefined;
  const edits: FieldEdit[] = [];
  if (moved)
    edits.push({ op: 'update', name: moved.pdfMeta.originalName, changes: { page: 1, rect: movedRect(moved) } });
  if (deleted) edits.push({ op: 'delete', name: deleted.pdfMeta.originalName });
  const at = (y: number, w = 160, h = 20): Rect => [40, y, 40 + w, y + h];
  edits.push(
    { op: 'add', field: { name: NEW.text, type: 'text', page: 1, rect: at(60), maxLength: 30 } },
    { op: 'add', field: { name: NEW.multiline, type: 'multiline', page: 1, rect: at(90, 160, 40), fontSize: 9 } },
    { op: 'add', field: { name: NEW.number, type: 'number', page: 1, rect: at(140), decimals: 2, alignment: 'right' } },
    { op: 'add', field: { name: NEW.date, type: 'date', page: 1, rect: at(170), dateFormat: 'dd/mm/yyyy' } },
    { op: 'add', field: { name: NEW.comb, type: 'comb', page: 1, rect: at(200, 100), cells: 5 } },
    { op: 'add', field: { name: NEW.checkbox, type: 'checkbox', page: 1, rect: at(230, 14, 14), required: true } },
    { op: 'add', field: { name: NEW.dropdown, type: 'dropdown', page: 1, rect: at(260), options: ['Alpha', 'Beta'] } },
    {
      op: 'add',
      field: {
        name: NEW.radio,
        type: 'radio',
        options: ['One', 'Two'],
        widgets: RADIO_RECTS.map((rect) => ({ page: 1, rect })),
      },
    },
    { op: 'add', field: { name: NEW.signature, type: 'signature', page: 1, rect: at(330, 160, 30) } },
  );
  return { edits, moved, deleted };
}

/** Text values of the new text-like fields (and the moved one), by PDF name: what every reader must show. */
export function sampleTexts(moved?: AnalysedField): Record<string, string> {
  return {
    [NEW.text]: 'Edited Dupont',
    [NEW.multiline]: 'First note line',
    [NEW.number]: '1,234.50',
    [NEW.date]: '24/12/2024',
    [NEW.comb]: 'AB123',
    ...(moved ? { [moved.pdfMeta.originalName]: 'Moved Martin' } : {}),
  };
}

/** Fill values for every new field: the texts, the box checked, the second option of each choice. */
export function sampleFill(moved?: AnalysedField): Record<string, FillValue> {
  const values: Record<string, FillValue> = {};
  for (const [k, text] of Object.entries(sampleTexts(moved))) values[k] = { kind: 'text', text };
  values[NEW.checkbox] = { kind: 'check', checked: true };
  values[NEW.radio] = { kind: 'choice', value: 'Two' };
  values[NEW.dropdown] = { kind: 'choice', value: 'Beta' };
  return values;
}
