// What validating edits needs to know of a template, as plain data: each page's visible box and each
// existing field's kind and widget places. Built from the loaded document by edit-fields.ts.
import type { PDFContext, PDFDict } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import type { PageNode } from '../pages.js';
import { N, deref, getNumbers, inherited, inheritedNumber, nameText, textOf } from '../pdf-objects.js';
import type { Rect, WidgetPlacement } from '../types.js';
import { PDFArray, PDFName, PDFNumber } from '@cantoo/pdf-lib';

export type OutlineKind = 'text' | 'dropdown' | 'listbox' | 'checkbox' | 'radio' | 'pushbutton' | 'signature';

export interface OutlineField {
  kind: OutlineKind;
  /** the widgets placed on a page, in field order (1-based pages) */
  widgets: WidgetPlacement[];
}

export interface FormOutline {
  /** the visible box of each page (its CropBox clipped to its MediaBox); index 0 is page 1 */
  pageBoxes: Rect[];
  /** existing fields by fully qualified name */
  fields: Map<string, OutlineField>;
}

/** US Letter: the default when a page has no usable /MediaBox (viewers assume it too). */
const LETTER: Rect = [0, 0, 612, 792];

function boxOf(ctx: PDFContext, page: PDFDict, key: string): Rect | undefined {
  const v = deref(ctx, inherited(page, key));
  if (!(v instanceof PDFArray) || v.size() < 4) return undefined;
  const n: number[] = [];
  for (let i = 0; i < 4; i++) {
    const x = deref(ctx, v.get(i));
    if (!(x instanceof PDFNumber) || !Number.isFinite(x.asNumber())) return undefined;
    n.push(x.asNumber());
  }
  return normalise(n);
}

const normalise = (n: number[]): Rect => [
  Math.min(n[0], n[2]),
  Math.min(n[1], n[3]),
  Math.max(n[0], n[2]),
  Math.max(n[1], n[3]),
];

/** The part of the page a viewer shows: the CropBox (default: MediaBox) clipped to the MediaBox. */
function visibleBox(ctx: PDFContext, page: PDFDict): Rect {
  const media = boxOf(ctx, page, 'MediaBox') ?? LETTER;
  const crop = boxOf(ctx, page, 'CropBox') ?? media;
  const out: Rect = [
    Math.max(media[0], crop[0]),
    Math.max(media[1], crop[1]),
    Math.min(media[2], crop[2]),
    Math.min(media[3], crop[3]),
  ];
  return out[0] < out[2] && out[1] < out[3] ? out : media;
}

/** Field flag bits (PDF 32000-1, tables 226 and 230) that decide a field's kind. */
const RADIO = 1 << 15;
const PUSHBUTTON = 1 << 16;
const COMBO = 1 << 17;

export function kindOf(field: RawField): OutlineKind | undefined {
  const ft = deref(field.dict.context, inherited(field.dict, 'FT'));
  const type = ft instanceof PDFName ? nameText(ft) : undefined;
  const ff = (inheritedNumber(field.dict, 'Ff') ?? 0) >>> 0;
  if (type === 'Tx') return 'text';
  if (type === 'Ch') return ff & COMBO ? 'dropdown' : 'listbox';
  if (type === 'Sig') return 'signature';
  if (type === 'Btn') return ff & PUSHBUTTON ? 'pushbutton' : ff & RADIO ? 'radio' : 'checkbox';
  return undefined;
}

/** The widgets of the field that are on a page, with their index in field.widgets. */
export function placedWidgetIndexes(field: RawField): number[] {
  return field.widgets.map((_, i) => i).filter((i) => field.widgetPages[i] >= 0);
}

export function buildOutline(ctx: PDFContext, pages: PageNode[], fields: RawField[]): FormOutline {
  const outline: FormOutline = { pageBoxes: pages.map((p) => visibleBox(ctx, p.dict)), fields: new Map() };
  for (const f of fields) {
    const kind = kindOf(f);
    if (!kind || f.fullName === '' || outline.fields.has(f.fullName)) continue;
    const widgets = placedWidgetIndexes(f).map((i) => {
      const r = getNumbers(f.widgets[i], 'Rect');
      return { page: f.widgetPages[i] + 1, rect: r?.length === 4 ? normalise(r) : ([0, 0, 0, 0] as Rect) };
    });
    outline.fields.set(f.fullName, { kind, widgets });
  }
  return outline;
}

/** A choice field's selected export values (/V: a string or an array of them). */
export function choiceValues(field: RawField): string[] {
  const v = deref(field.dict.context, field.dict.get(N('V')));
  if (v instanceof PDFArray) return v.asArray().map((e) => textOf(deref(field.dict.context, e)) ?? '');
  const text = textOf(v);
  return text ? [text] : [];
}
