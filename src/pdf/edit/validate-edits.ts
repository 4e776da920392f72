// Every reason a list of edits cannot be applied, found before anything is written: the edits are
// walked in order over a copy of the form's outline (an added field exists for the edits after it, a
// deleted one no longer does), and each problem names the field it is about.
import type { EditLimits } from '../limits.js';
import type { FieldChanges, FieldEdit, FieldEditProblem, NewField, Rect, WidgetPlacement } from '../types.js';
import type { FormOutline, OutlineField, OutlineKind } from './form-outline.js';

/** Largest font size accepted (pt): bigger than any form text, small enough to keep layouts sane. */
const MAX_FONT_SIZE = 144;
/** Longest partial name accepted; real forms stay under 100 characters. */
const MAX_NAME_CHARS = 200;
/** Longest option; a dropdown entry is a label, not a paragraph. */
const MAX_OPTION_CHARS = 500;
const MAX_DECIMALS = 10;
/** Date patterns the AF date functions understand: day, month, year, time parts and separators. */
const DATE_PATTERN = /^(?=.*[dmy])[dmyHhMstT/\-. ,:]{1,40}$/;
/** Points of slack when a rect meets the page's edge (values converted from page images round). */
const EDGE_SLACK = 0.01;

const TEXT_TYPES = new Set(['text', 'multiline', 'number', 'date', 'comb']);
const TYPES = new Set([...TEXT_TYPES, 'checkbox', 'radio', 'dropdown', 'signature']);

type Report = (message: string) => void;

const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A problem with the name, or undefined when it is a usable partial name. */
function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.trim() === '') return 'the name is empty';
  if (name.includes('.')) return 'the name may not contain "." (it separates the parts of a PDF field name)';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'the name may not contain control characters';
  if (Array.from(name).length > MAX_NAME_CHARS) return `the name is longer than ${MAX_NAME_CHARS} characters`;
  return undefined;
}

function checkRect(outline: FormOutline, page: unknown, rect: unknown, report: Report, what = 'the box'): boolean {
  if (!isPositiveInt(page) || page > outline.pageBoxes.length) {
    report(`page ${String(page)} does not exist (the PDF has ${outline.pageBoxes.length} pages)`);
    return false;
  }
  if (!Array.isArray(rect) || rect.length !== 4 || !rect.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    report(`${what} must be four numbers [x1, y1, x2, y2]`);
    return false;
  }
  const [x1, y1, x2, y2] = rect as Rect;
  if (!(x2 > x1 && y2 > y1)) {
    report(`${what} has zero or negative size (x2 must be above x1 and y2 above y1)`);
    return false;
  }
  const [px1, py1, px2, py2] = outline.pageBoxes[page - 1];
  if (x1 < px1 - EDGE_SLACK || y1 < py1 - EDGE_SLACK || x2 > px2 + EDGE_SLACK || y2 > py2 + EDGE_SLACK) {
    report(`${what} [${rect.join(', ')}] is not inside page ${page} ([${[px1, py1, px2, py2].join(', ')}])`);
    return false;
  }
  return true;
}

function checkOptions(options: unknown, limits: EditLimits, report: Report): options is string[] {
  if (!Array.isArray(options) || options.length === 0) {
    report('the option list is empty');
    return false;
  }
  if (options.length > limits.maxOptions) {
    report(`more than ${limits.maxOptions} options`);
    return false;
  }
  let ok = true;
  const seen = new Set<string>();
  for (const o of options) {
    if (typeof o !== 'string' || o.trim() === '') {
      report('an option is empty');
      ok = false;
    } else if (o.includes('\u0000') || Array.from(o).length > MAX_OPTION_CHARS) {
      report(`the option "${o.slice(0, 40)}" is too long or holds a NUL character`);
      ok = false;
    } else if (seen.has(o)) {
      report(`the option "${o}" is listed twice`);
      ok = false;
    }
    if (typeof o === 'string') seen.add(o);
  }
  return ok;
}

/** Widgets of one radio group may not overlap: a click would hit two buttons. */
function checkNoOverlap(widgets: WidgetPlacement[], report: Report): void {
  for (let i = 0; i < widgets.length; i++) {
    for (let j = i + 1; j < widgets.length; j++) {
      const [a, b] = [widgets[i], widgets[j]];
      if (a.page !== b.page) continue;
      const w = Math.min(a.rect[2], b.rect[2]) - Math.max(a.rect[0], b.rect[0]);
      const h = Math.min(a.rect[3], b.rect[3]) - Math.max(a.rect[1], b.rect[1]);
      if (w > 0 && h > 0) report(`radio buttons ${i + 1} and ${j + 1} overlap on page ${a.page}`);
    }
  }
}

function checkWidgets(outline: FormOutline, widgets: unknown, report: Report): WidgetPlacement[] | undefined {
  if (!Array.isArray(widgets) || widgets.length === 0) {
    report('widgets must list one {page, rect} per button');
    return undefined;
  }
  let ok = true;
  widgets.forEach((w, i) => {
    const item = isObject(w) ? w : {};
    ok = checkRect(outline, item.page, item.rect, report, `the box of widget ${i + 1}`) && ok;
  });
  return ok ? (widgets as WidgetPlacement[]) : undefined;
}

function checkTextStyle(input: { fontSize?: unknown; alignment?: unknown }, report: Report): void {
  const size = input.fontSize;
  if (size !== undefined && !(typeof size === 'number' && (size === 0 || (size >= 1 && size <= MAX_FONT_SIZE)))) {
    report(`fontSize must be 0 (automatic) or between 1 and ${MAX_FONT_SIZE}`);
  }
  if (input.alignment !== undefined && !['left', 'center', 'right'].includes(input.alignment as string)) {
    report('alignment must be left, center or right');
  }
}

/** Reports each given property that means nothing for this kind of field (it would be ignored silently). */
function checkApplies(input: object, allowed: string[], kind: string, report: Report): void {
  for (const key of ['fontSize', 'alignment', 'maxLength', 'cells', 'options', 'dateFormat', 'decimals', 'widgets']) {
    if ((input as Record<string, unknown>)[key] !== undefined && !allowed.includes(key)) {
      report(`${key} does not apply to a ${kind} field`);
    }
  }
}

const ALLOWED_NEW: Record<string, string[]> = {
  text: ['fontSize', 'alignment', 'maxLength'],
  multiline: ['fontSize', 'alignment', 'maxLength'],
  number: ['fontSize', 'alignment', 'maxLength', 'decimals'],
  date: ['fontSize', 'alignment', 'maxLength', 'dateFormat'],
  comb: ['fontSize', 'alignment', 'cells', 'maxLength'],
  dropdown: ['fontSize', 'alignment', 'options'],
  radio: ['options', 'widgets'],
  checkbox: [],
  signature: [],
};

function checkNew(outline: FormOutline, field: NewField, limits: EditLimits, report: Report): OutlineField | undefined {
  const problem = nameProblem(field.name);
  if (problem) report(problem);
  else {
    for (const existing of outline.fields.keys()) {
      if (existing === field.name || existing.startsWith(`${field.name}.`)) {
        report(`a field named "${existing}" exists already`);
        break;
      }
    }
  }
  if (!TYPES.has(field.type)) {
    report(`unknown field type "${String(field.type)}"`);
    return undefined;
  }
  checkApplies(field, ALLOWED_NEW[field.type], field.type, report);
  checkTextStyle(field, report);
  if (field.maxLength !== undefined && !isPositiveInt(field.maxLength)) report('maxLength must be a positive integer');
  if (field.type === 'comb') {
    if (field.cells === undefined) report('a comb field needs cells (the number of character cells)');
    else if (!isPositiveInt(field.cells)) report('cells must be a positive integer');
    else if (field.maxLength !== undefined && field.maxLength !== field.cells)
      report('a comb field takes one character per cell: maxLength must equal cells');
  }
  if (field.type === 'date' && field.dateFormat !== undefined) {
    if (typeof field.dateFormat !== 'string' || !DATE_PATTERN.test(field.dateFormat))
      report('dateFormat must be a date pattern such as "dd/mm/yyyy" (d, m, y, H, h, M, s, t and separators)');
  }
  if (field.type === 'number' && field.decimals !== undefined) {
    if (!(Number.isInteger(field.decimals) && field.decimals >= 0 && field.decimals <= MAX_DECIMALS))
      report(`decimals must be an integer from 0 to ${MAX_DECIMALS}`);
  }
  for (const flag of ['required', 'readOnly'] as const) {
    if (field[flag] !== undefined && typeof field[flag] !== 'boolean') report(`${flag} must be true or false`);
  }
  if (field.type === 'dropdown' || field.type === 'radio') checkOptions(field.options, limits, report);
  if (field.type === 'radio') {
    if (field.rect !== undefined || field.page !== undefined)
      report('a radio group is placed with widgets (one {page, rect} per option), not page and rect');
    const widgets = checkWidgets(outline, field.widgets, report);
    if (!widgets) return undefined;
    if (Array.isArray(field.options) && field.options.length !== widgets.length)
      report(`${widgets.length} widgets for ${field.options.length} options: give one widget per option`);
    checkNoOverlap(widgets, report);
    return { kind: 'radio', widgets };
  }
  if (!checkRect(outline, field.page, field.rect, report)) return undefined;
  const kind: OutlineKind = TEXT_TYPES.has(field.type) ? 'text' : (field.type as OutlineKind);
  return { kind, widgets: [{ page: field.page!, rect: field.rect! }] };
}

const ALLOWED_CHANGE: Record<OutlineKind, string[]> = {
  text: ['fontSize', 'alignment', 'maxLength', 'cells', 'widgets'],
  dropdown: ['fontSize', 'alignment', 'options', 'widgets'],
  listbox: ['fontSize', 'alignment', 'options', 'widgets'],
  radio: ['options', 'widgets'],
  checkbox: ['widgets'],
  pushbutton: ['widgets'],
  signature: ['widgets'],
};

function checkChanges(
  outline: FormOutline,
  field: OutlineField,
  changes: FieldChanges,
  limits: EditLimits,
  report: Report,
): void {
  checkApplies(changes, ALLOWED_CHANGE[field.kind], field.kind, report);
  checkTextStyle(changes, report);
  if (changes.maxLength !== undefined && !isPositiveInt(changes.maxLength))
    report('maxLength must be a positive integer');
  if (changes.cells !== undefined && !isPositiveInt(changes.cells)) report('cells must be a positive integer');
  if (changes.required !== undefined && typeof changes.required !== 'boolean') report('required must be true or false');
  if (changes.options !== undefined && checkOptions(changes.options, limits, report)) {
    if (field.kind === 'radio' && changes.options.length !== field.widgets.length)
      report(`the radio group has ${field.widgets.length} buttons: give ${field.widgets.length} options`);
  }
  const moves = changes.page !== undefined || changes.rect !== undefined;
  if (moves && changes.widgets !== undefined) report('give either page and rect or widgets, not both');
  else if (moves) {
    if (field.widgets.length !== 1)
      report(`the field has ${field.widgets.length} widgets: move them with widgets (one {page, rect} each)`);
    else if (checkRect(outline, changes.page ?? field.widgets[0].page, changes.rect ?? field.widgets[0].rect, report)) {
      field.widgets = [{ page: changes.page ?? field.widgets[0].page, rect: changes.rect ?? field.widgets[0].rect }];
    }
  } else if (changes.widgets !== undefined) {
    const widgets = checkWidgets(outline, changes.widgets, report);
    if (widgets && widgets.length !== field.widgets.length)
      report(`the field has ${field.widgets.length} widgets: give a place for each (${widgets.length} given)`);
    else if (widgets) field.widgets = widgets;
  }
  if (field.kind === 'radio' && (moves || changes.widgets !== undefined)) checkNoOverlap(field.widgets, report);
}

/** Every problem of `edits` against the form; [] when all of them can be applied in order. */
export function validateEdits(
  outline: FormOutline,
  edits: readonly FieldEdit[],
  limits: EditLimits,
): FieldEditProblem[] {
  const problems: FieldEditProblem[] = [];
  if (!Array.isArray(edits)) return [{ field: '', message: 'the edits must be a list' }];
  if (edits.length > limits.maxEdits) {
    return [{ field: '', message: `${edits.length} edits in one request; at most ${limits.maxEdits} are allowed` }];
  }
  // Walked on a copy: the edits see the fields added and deleted before them.
  const fields = new Map([...outline.fields].map(([k, v]) => [k, { ...v, widgets: [...v.widgets] }]));
  const state: FormOutline = { pageBoxes: outline.pageBoxes, fields };
  for (const [i, edit] of edits.entries()) {
    const e = (isObject(edit) ? edit : {}) as Record<string, unknown>;
    const target = e.op === 'add' ? (isObject(e.field) ? e.field.name : undefined) : e.name;
    const label = typeof target === 'string' && target !== '' ? target : `edit ${i + 1}`;
    const report: Report = (message) => problems.push({ field: label, message });
    if (e.op === 'add') {
      if (!isObject(e.field)) {
        report('an add needs a field');
        continue;
      }
      const added = checkNew(state, e.field as unknown as NewField, limits, report);
      if (added && typeof target === 'string' && !fields.has(target)) fields.set(target, added);
    } else if (e.op === 'update' || e.op === 'delete') {
      const field = typeof target === 'string' ? fields.get(target) : undefined;
      if (!field) {
        report('no field has this name');
        continue;
      }
      if (e.op === 'delete') fields.delete(target as string);
      else if (!isObject(e.changes)) report('an update needs changes');
      else checkChanges(state, field, e.changes as FieldChanges, limits, report);
    } else {
      report(`unknown operation "${String(e.op)}" (add, update or delete)`);
    }
  }
  // The analyser refuses forms with more fields than this: an edit must not make the template unusable.
  if (fields.size > limits.maxFields && fields.size > outline.fields.size) {
    problems.push({ field: '', message: `the form would have ${fields.size} fields; at most ${limits.maxFields}` });
  }
  return problems;
}
