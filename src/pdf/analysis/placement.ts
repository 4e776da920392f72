// Where a field sits and what it says about itself: its tooltip (/TU) and its widgets' rectangles.
// Lets a caller explain a field ("Line 3: total income") and point at it on the page.
import { PDFArray, PDFNumber, type PDFContext } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { deref, resolve, textOf } from '../pdf-objects.js';
import type { Rect, WidgetPlacement } from '../types.js';

/** Longest label kept: tooltips are a sentence or two; a hostile file must not bloat every schema. */
const MAX_LABEL_CHARS = 1000;

/** /TU of the field, else of its first widget (some producers put it there); null when none or blank. */
export function fieldLabel(raw: RawField): string | null {
  let text = textOf(resolve(raw.dict, 'TU'));
  if ((text === undefined || text.trim() === '') && raw.widgets[0] && raw.widgets[0] !== raw.dict) {
    text = textOf(resolve(raw.widgets[0], 'TU'));
  }
  // NUL never helps a tooltip, and the service refuses it in every text it receives.
  const label = text?.replace(/\0/g, '').trim();
  if (!label) return null;
  const cps = Array.from(label);
  return cps.length > MAX_LABEL_CHARS ? `${cps.slice(0, MAX_LABEL_CHARS).join('')}…` : label;
}

/** Points rounded to 1/1000: enough for any display, and no 0.30000000000000004 in the schema. */
const round = (n: number) => Math.round(n * 1000) / 1000 || 0;

/** A widget's /Rect normalised to x1 <= x2, y1 <= y2; [0, 0, 0, 0] when it has no usable one. */
export function widgetRect(ctx: PDFContext, widget: RawField['widgets'][number]): Rect {
  const arr = resolve(widget, 'Rect');
  if (!(arr instanceof PDFArray) || arr.size() < 4) return [0, 0, 0, 0];
  const n: number[] = [];
  for (let i = 0; i < 4; i++) {
    const v = deref(ctx, arr.get(i));
    if (!(v instanceof PDFNumber) || !Number.isFinite(v.asNumber())) return [0, 0, 0, 0];
    n.push(v.asNumber());
  }
  return [
    round(Math.min(n[0], n[2])),
    round(Math.min(n[1], n[3])),
    round(Math.max(n[0], n[2])),
    round(Math.max(n[1], n[3])),
  ];
}

/** The field's widgets that are on a page, in order, with 1-based pages. */
export function placedWidgets(ctx: PDFContext, raw: RawField): WidgetPlacement[] {
  const out: WidgetPlacement[] = [];
  raw.widgets.forEach((w, i) => {
    const page = raw.widgetPages[i];
    if (page !== undefined && page >= 0) out.push({ page: page + 1, rect: widgetRect(ctx, w) });
  });
  return out;
}
