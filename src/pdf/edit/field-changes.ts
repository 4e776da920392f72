// Applies an update to an existing field: moves and resizes its widgets (to another page too), and
// changes its font size, alignment, MaxLen, comb cells, options or required flag. Text and choice
// fields whose look changed are queued for a new appearance; buttons and signatures keep theirs (a
// viewer scales an appearance to its widget's /Rect).
import { PDFHexString, PDFNumber, type PDFArray, type PDFDict, type PDFObject } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { N, getArray, getNumbers, inheritedNumber } from '../pdf-objects.js';
import type { FieldChanges, WidgetPlacement } from '../types.js';
import { acroFormOf, annotsOf, daText, daWithSize, type EditContext } from './edit-context.js';
import { choiceValues, kindOf, placedWidgetIndexes } from './form-outline.js';
import { FLAG, QUADDING } from './new-field.js';

/** Removes every entry of `arr` that is (or refers to) `dict`; returns the entry it found, if any. */
export function removeFrom(arr: PDFArray | undefined, dict: PDFDict): PDFObject | undefined {
  let found: PDFObject | undefined;
  for (let i = (arr?.size() ?? 0) - 1; i >= 0; i--) {
    if (arr!.get(i) === dict || arr!.lookup(i) === dict) {
      found = arr!.get(i);
      arr!.remove(i);
    }
  }
  return found;
}

/** Puts widget `index` of the field at `place`; true when its size changed. */
function moveWidget(ec: EditContext, field: RawField, index: number, place: WidgetPlacement): boolean {
  const widget = field.widgets[index];
  const old = getNumbers(widget, 'Rect') ?? [0, 0, 0, 0];
  const size = (r: readonly number[]) => [Math.abs(r[2] - r[0]), Math.abs(r[3] - r[1])];
  const resized = size(old).some((v, i) => Math.abs(v - size(place.rect)[i]) > 0.001);
  widget.set(N('Rect'), ec.ctx.obj([...place.rect]));
  const from = field.widgetPages[index];
  const to = place.page - 1;
  if (from !== to) {
    const entry = from >= 0 ? removeFrom(getArray(ec.pages[from].dict, 'Annots'), widget) : undefined;
    annotsOf(ec, ec.pages[to].dict).push(entry ?? ec.ctx.getObjectRef(widget) ?? ec.ctx.register(widget));
    const ref = ec.pages[to].ref;
    if (ref) widget.set(N('P'), ref);
    else widget.delete(N('P'));
    field.widgetPages[index] = to;
  }
  return resized;
}

/** The field's own flags after `set` bits are set and `clear` bits cleared (inherited ones included). */
function setFlags(field: RawField, set: number, clear = 0): void {
  const ff = (inheritedNumber(field.dict, 'Ff') ?? 0) >>> 0;
  field.dict.set(N('Ff'), PDFNumber.of(((ff | set) & ~clear) >>> 0));
  field.flags = undefined; // the fill modules' memo
}

/** Dictionaries that hold their own value of `key` among the field and its widgets; the field when none does. */
function holdersOf(field: RawField, key: string): PDFDict[] {
  const own = [field.dict, ...field.widgets.filter((w) => w !== field.dict)].filter((d) => d.has(N(key)));
  return own.length > 0 ? own : [field.dict];
}

export function updateField(ec: EditContext, field: RawField, changes: FieldChanges): void {
  const kind = kindOf(field);
  let restyled = false;
  const placed = placedWidgetIndexes(field);
  const places =
    changes.widgets ??
    (changes.page !== undefined || changes.rect !== undefined
      ? [
          {
            page: changes.page ?? field.widgetPages[placed[0]] + 1,
            rect: changes.rect ?? (getNumbers(field.widgets[placed[0]], 'Rect') as WidgetPlacement['rect']),
          },
        ]
      : []);
  places.forEach((p, i) => {
    if (moveWidget(ec, field, placed[i], p)) restyled = true;
  });
  if (changes.fontSize !== undefined) {
    const form = acroFormOf(ec); // the /Helv a /DA without a font gets
    for (const d of holdersOf(field, 'DA')) d.set(N('DA'), daWithSize(daText(d, form), changes.fontSize));
    restyled = true;
  }
  if (changes.alignment !== undefined) {
    for (const d of holdersOf(field, 'Q')) d.set(N('Q'), PDFNumber.of(QUADDING[changes.alignment]));
    restyled = true;
  }
  const maxLen = changes.cells ?? changes.maxLength;
  if (maxLen !== undefined) {
    for (const d of holdersOf(field, 'MaxLen')) d.set(N('MaxLen'), PDFNumber.of(maxLen));
    field.maxLen = undefined;
    restyled = true;
  }
  if (changes.cells !== undefined) setFlags(field, FLAG.comb, FLAG.multiline | FLAG.password | FLAG.fileSelect);
  if (changes.required !== undefined)
    setFlags(field, changes.required ? FLAG.required : 0, changes.required ? 0 : FLAG.required);
  if (changes.options !== undefined) {
    const kept = choiceValues(field).filter((v) => changes.options!.includes(v));
    field.dict.set(N('Opt'), ec.ctx.obj(changes.options.map((o) => PDFHexString.fromText(o))));
    if (kind !== 'radio') {
      // A selection that is no longer an option goes; /I indexed the old list.
      field.dict.delete(N('I'));
      if (kept.length === 0) field.dict.delete(N('V'));
      else field.dict.set(N('V'), PDFHexString.fromText(kept[0]));
      restyled = true;
    }
  }
  if (restyled && (kind === 'text' || kind === 'dropdown' || kind === 'listbox')) ec.redraw.add(field);
}
