// Adds one field: its field dictionary (merged with its widget, or a radio group's parent with one
// widget kid per option), listed in /AcroForm /Fields and on its pages' /Annots. Appearances are
// drawn later (redraw.ts), once every edit is in.
import { PDFHexString, PDFNumber, PDFString, type PDFDict, type PDFRef } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { N, getArray } from '../pdf-objects.js';
import type { NewField, Rect, WidgetPlacement } from '../types.js';
import { acroFormOf, annotsOf, helvDa, type EditContext } from './edit-context.js';
import { pageRotation } from '../page-geometry.js';
import { formatActions } from './format-actions.js';

/** Field flag bits (PDF 32000-1, tables 221, 226, 228, 230). */
export const FLAG = {
  readOnly: 1 << 0,
  required: 1 << 1,
  multiline: 1 << 12,
  password: 1 << 13,
  noToggleToOff: 1 << 14,
  radio: 1 << 15,
  combo: 1 << 17,
  fileSelect: 1 << 20,
  doNotScroll: 1 << 23,
  comb: 1 << 24,
} as const;

/** Annotation flag Print: the widget prints, and so shows once flattened. */
const PRINT = 4;
export const QUADDING = { left: 0, center: 1, right: 2 } as const;
/** Buttons name ZapfDingbats, as Acrobat's do (their marks are drawn in it). */
const ZAPF_DA = PDFString.of('/ZaDb 0 Tf 0 g');
/** Buttons get a thin black border so an unchecked box can be seen; text fields none (the page has its own lines). */
const BUTTON_BORDER = 1;

function flagsOf(field: NewField): number {
  let ff = 0;
  if (field.required) ff |= FLAG.required;
  if (field.readOnly) ff |= FLAG.readOnly;
  if (field.type === 'multiline') ff |= FLAG.multiline;
  if (field.type === 'comb') ff |= FLAG.comb | FLAG.doNotScroll;
  if (field.type === 'dropdown') ff |= FLAG.combo;
  if (field.type === 'radio') ff |= FLAG.radio | FLAG.noToggleToOff;
  return ff;
}

/** A widget annotation on `place`'s page; buttons get a border and their ZapfDingbats mark in /MK. */
function widgetDict(ec: EditContext, place: WidgetPlacement, button: boolean, mark?: string): PDFDict {
  const page = ec.pages[place.page - 1];
  const mk = ec.ctx.obj({});
  const rotation = pageRotation(page.dict);
  // Text on a rotated page reads upright, as Acrobat sets it for fields drawn on such pages.
  if (rotation) mk.set(N('R'), PDFNumber.of(rotation));
  if (button) {
    mk.set(N('BC'), ec.ctx.obj([0]));
    mk.set(N('CA'), PDFHexString.fromText(mark ?? '4'));
  }
  const widget = ec.ctx.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    Rect: [...place.rect] as Rect,
    F: PRINT,
    MK: mk,
  });
  if (button) widget.set(N('BS'), ec.ctx.obj({ W: BUTTON_BORDER, S: 'S' }));
  if (page.ref) widget.set(N('P'), page.ref);
  return widget;
}

function place(ec: EditContext, ref: PDFRef, page: number): void {
  annotsOf(ec, ec.pages[page - 1].dict).push(ref);
}

/** Adds the field and returns it as the field tree would find it. */
export function addField(ec: EditContext, field: NewField): RawField {
  const form = acroFormOf(ec);
  const { ctx } = ec;
  const button = field.type === 'checkbox' || field.type === 'radio';
  const entries = ctx.obj({
    FT: button ? 'Btn' : field.type === 'dropdown' ? 'Ch' : field.type === 'signature' ? 'Sig' : 'Tx',
    T: PDFHexString.fromText(field.name),
    TU: PDFHexString.fromText(field.name),
    Ff: flagsOf(field),
  });
  entries.set(N('DA'), button ? ZAPF_DA : helvDa(field.fontSize ?? 0));
  if (!button && field.alignment) entries.set(N('Q'), PDFNumber.of(QUADDING[field.alignment]));
  const maxLen = field.type === 'comb' ? field.cells : field.maxLength;
  if (maxLen !== undefined) entries.set(N('MaxLen'), PDFNumber.of(maxLen));
  if (field.options) entries.set(N('Opt'), ctx.obj(field.options.map((o) => PDFHexString.fromText(o))));
  const aa = formatActions(ctx, field);
  if (aa) entries.set(N('AA'), aa);

  let dict: PDFDict;
  const widgets: PDFDict[] = [];
  const pages: number[] = [];
  if (field.type === 'radio') {
    dict = entries;
    const ref = ctx.register(dict);
    const kids = ctx.obj([]);
    for (const w of field.widgets ?? []) {
      const widget = widgetDict(ec, w, true, 'l');
      widget.set(N('Parent'), ref);
      const wref = ctx.register(widget);
      kids.push(wref);
      place(ec, wref, w.page);
      widgets.push(widget);
      pages.push(w.page - 1);
    }
    dict.set(N('Kids'), kids);
    getArray(form, 'Fields')!.push(ref);
  } else {
    dict = widgetDict(ec, { page: field.page!, rect: field.rect! }, button);
    for (const [k, v] of entries.entries()) dict.set(k, v);
    const ref = ctx.register(dict);
    place(ec, ref, field.page!);
    getArray(form, 'Fields')!.push(ref);
    widgets.push(dict);
    pages.push(field.page! - 1);
  }
  const raw: RawField = {
    dict,
    partialNames: [field.name],
    fullName: field.name,
    widgets,
    widgetPages: pages,
    inAcroFormFields: true,
  };
  ec.fields.set(field.name, raw);
  ec.redraw.add(raw);
  return raw;
}
