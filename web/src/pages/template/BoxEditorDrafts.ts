// The box editor's model: the template's fields as drafts (existing ones from the schema, new ones drawn
// on the page), changed locally, and turned into the one list of edits POST …/field-edits takes.
// Pure: no DOM, no requests (and no import that needs them: the unit tests type-check it without DOM types).
import type { components } from '../../generated/schema.js';
import { boundsOf, radioRow, shiftRect, type Rect } from './edit-geometry.js';

type Schemas = components['schemas'];
type SchemaField = Schemas['SchemaField'];
/** A widget's box as pdf.ts finds it (its Box). */
type Box = { field: string; page: number; rect: number[] };
export type FieldEdit = Schemas['FieldEditAdd'] | Schemas['FieldEditUpdate'] | Schemas['FieldEditDelete'];
export type NewFieldType = Schemas['NewField']['type'];
export type Alignment = NonNullable<Schemas['NewField']['alignment']>;

export interface Widget {
  page: number;
  rect: Rect;
}

/** A field as the editor holds it: what the PDF has (or will have) once the pending edits are saved. */
export interface Draft {
  /** stable id while editing: the schema key of an existing field, `new:n` for a drawn one */
  id: string;
  /** existing fields: the key the API knows them by; undefined for new fields */
  existing?: string;
  /** the render key: the new field's PDF name, editable for new fields only */
  key: string;
  type: NewFieldType | SchemaField['type'];
  widgets: Widget[];
  fontSize?: number;
  alignment?: Alignment;
  maxLength?: number;
  cells?: number;
  options?: string[];
  required: boolean;
  deleted?: boolean;
}

/** The tools of the toolbar: select, or draw a new field of one type. */
export type Tool = 'select' | NewFieldType;

const TEXT_LIKE = new Set(['text', 'multiline', 'number', 'date', 'comb']);
export const hasText = (d: Draft) => TEXT_LIKE.has(d.type) || d.type === 'dropdown';
export const hasMaxLength = (d: Draft) => TEXT_LIKE.has(d.type) && d.type !== 'comb';
export const hasOptions = (d: Draft) => d.type === 'dropdown' || d.type === 'radio';
/** comb cells: a new comb, or any text field (the API makes it a comb) */
export const hasCells = (d: Draft) => d.type === 'comb' || (d.type === 'text' && d.existing !== undefined);

/** The template's fields as drafts, their widgets from the boxes drawn on the page. */
export function draftsOf(fields: readonly SchemaField[], boxes: readonly Box[]): Draft[] {
  return fields.map((f) => {
    const mine = boxes.filter((b) => b.field === f.name).map((b) => ({ page: b.page, rect: b.rect as Rect }));
    return {
      id: f.name,
      existing: f.name,
      key: f.name,
      type: f.type,
      widgets: mine.length > 0 ? mine : [{ page: f.pdfMeta.page, rect: f.pdfMeta.rect as Rect }],
      maxLength: f.maxLength,
      options: f.type === 'radio' || f.type === 'dropdown' ? f.options : undefined,
      required: f.required,
    };
  });
}

/** Sizes (points) of a field drawn with a tap or a tiny drag. */
const TAP_SIZE: Record<NewFieldType, [number, number]> = {
  text: [150, 18],
  multiline: [200, 54],
  number: [90, 18],
  date: [90, 18],
  comb: [90, 18],
  checkbox: [12, 12],
  radio: [60, 14],
  dropdown: [120, 18],
  signature: [180, 36],
};

/** A box smaller than this (points) was a tap, not a drag: the field gets its type's usual size. */
export const TAP_LIMIT = 3;

/** The first key `type_n` that no field (kept, deleted or pending) and no PDF name already uses. */
export function freeKey(type: NewFieldType, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const key = `${type}_${n}`;
    if (!taken.has(key)) return key;
  }
}

/**
 * A new field of `type` drawn as `rect` on `page`, with defaults a form usually wants: a dropdown with
 * three options, a radio group of two buttons in a row, a comb of `cells` cells.
 */
export function newDraft(id: string, type: NewFieldType, page: number, rect: Rect, key: string, cells: number): Draft {
  let r = rect;
  if (r[2] - r[0] < TAP_LIMIT && r[3] - r[1] < TAP_LIMIT) {
    const [w, h] = TAP_SIZE[type];
    r = [r[0], r[3] - h, r[0] + w, r[3]];
  }
  const d: Draft = { id, key, type, widgets: [{ page, rect: r }], required: false };
  if (type === 'dropdown') d.options = ['Option 1', 'Option 2', 'Option 3'];
  if (type === 'radio') {
    d.options = ['Option 1', 'Option 2'];
    d.widgets = radioRow(r, 2).map((w) => ({ page, rect: w }));
  }
  if (type === 'comb') d.cells = cells;
  return d;
}

/**
 * A radio group's widgets for a new option count: the buttons laid out again in the group's box.
 * Other fields keep theirs.
 */
export function withOptions(d: Draft, options: string[]): Draft {
  if (d.type !== 'radio' || options.length === d.widgets.length || options.length === 0) return { ...d, options };
  const page = d.widgets[0].page;
  const box = boundsOf(d.widgets.filter((w) => w.page === page).map((w) => w.rect));
  return { ...d, options, widgets: radioRow(box, options.length).map((rect) => ({ page, rect })) };
}

/**
 * A field given another type (a detection fixed in review): one box for every type but radio, whose
 * buttons are laid out in it; the options and cells a new field of that type would get.
 */
export function withType(d: Draft, type: NewFieldType, cells: number): Draft {
  if (type === d.type) return d;
  const page = d.widgets[0].page;
  const box = boundsOf(d.widgets.filter((w) => w.page === page).map((w) => w.rect));
  const fresh = newDraft(d.id, type, page, box, d.key, d.cells ?? cells);
  const options = d.options && d.options.length > 1 ? d.options : fresh.options;
  const next: Draft = { ...fresh, existing: d.existing, required: d.required, fontSize: d.fontSize };
  if (type === 'radio') return withOptions({ ...next, options: undefined }, options ?? []);
  return { ...next, options: hasOptions(next) ? options : undefined };
}

/** Every widget of a field moved or resized along with the one that was dragged (its box maps to `to`). */
export function withWidgetBox(d: Draft, index: number, to: Rect, resize: boolean): Draft {
  const from = d.widgets[index].rect;
  if (resize) return { ...d, widgets: d.widgets.map((w, i) => (i === index ? { ...w, rect: to } : w)) };
  // a move: the same shift for every widget of the field (a radio group moves as one)
  const dx = to[0] - from[0];
  const dy = to[1] - from[1];
  return { ...d, widgets: d.widgets.map((w) => ({ ...w, rect: shiftRect(w.rect, dx, dy) })) };
}

const sameRects = (a: Widget[], b: Widget[]) =>
  a.length === b.length && a.every((w, i) => w.page === b[i].page && w.rect.every((n, j) => n === b[i].rect[j]));
const sameList = (a?: string[], b?: string[]) => (a ?? []).join('\u0000') === (b ?? []).join('\u0000');

/**
 * The edits that turn `base` (the saved template) into `drafts`: deletes, then updates, then adds, so a
 * new field may take a name a deleted one freed. A field whose key or type changed is deleted and added
 * again (the API changes neither in place).
 */
export function editsOf(base: readonly Draft[], drafts: readonly Draft[]): FieldEdit[] {
  const before = new Map(base.map((d) => [d.id, d]));
  const deletes: FieldEdit[] = [];
  const updates: FieldEdit[] = [];
  const adds: FieldEdit[] = [];
  for (const d of drafts) {
    const was = before.get(d.id);
    if (!was) {
      if (!d.deleted) adds.push({ op: 'add', field: newField(d) });
      continue;
    }
    if (d.deleted) {
      deletes.push({ op: 'delete', name: was.key });
      continue;
    }
    // a new key or type (a detected field fixed in review): the field is replaced by one drawn anew
    if (d.key !== was.key || d.type !== was.type) {
      deletes.push({ op: 'delete', name: was.key });
      adds.push({ op: 'add', field: newField(d) });
      continue;
    }
    const changes: Schemas['FieldChanges'] = {};
    if (!sameRects(was.widgets, d.widgets)) {
      if (was.widgets.length === 1 && d.widgets.length === 1) {
        changes.page = d.widgets[0].page;
        changes.rect = d.widgets[0].rect;
      } else changes.widgets = d.widgets;
    }
    if (d.fontSize !== was.fontSize && d.fontSize !== undefined) changes.fontSize = d.fontSize;
    if (d.alignment !== was.alignment && d.alignment !== undefined) changes.alignment = d.alignment;
    if (d.maxLength !== was.maxLength && d.maxLength !== undefined) changes.maxLength = d.maxLength;
    if (d.cells !== was.cells && d.cells !== undefined) changes.cells = d.cells;
    if (!sameList(d.options, was.options) && d.options) changes.options = d.options;
    if (d.required !== was.required) changes.required = d.required;
    if (Object.keys(changes).length > 0) updates.push({ op: 'update', name: was.key, changes });
  }
  return [...deletes, ...updates, ...adds];
}

function newField(d: Draft): Schemas['NewField'] {
  const f: Schemas['NewField'] = { name: d.key, type: d.type as NewFieldType };
  if (d.type === 'radio') f.widgets = d.widgets;
  else {
    f.page = d.widgets[0].page;
    f.rect = d.widgets[0].rect;
  }
  if (d.fontSize !== undefined) f.fontSize = d.fontSize;
  if (d.alignment !== undefined) f.alignment = d.alignment;
  if (d.maxLength !== undefined && hasMaxLength(d)) f.maxLength = d.maxLength;
  if (d.type === 'comb') f.cells = d.cells;
  if (d.options && hasOptions(d)) f.options = d.options;
  if (d.required) f.required = true;
  return f;
}

/** The field an edit is about, as the API names it in `details.errors[].field`. */
export const editName = (e: FieldEdit) => (e.op === 'add' ? e.field.name : e.name);
