// Appearances of the check boxes and radio buttons the editor creates. A check box gets the engine's
// own bare-widget look (appearance-button.ts: the /MK border, and a ZapfDingbats check when on); a radio
// button is round, as Acrobat draws its "circle" style: the /MK border as a circle, and a dot when on.
// Existing buttons keep the appearances they came with.
import { PDFName, type PDFDict } from '@cantoo/pdf-lib';
import { OFF, ensureOnAppearance } from '../appearance/appearance-button.js';
import { formXObject, widgetBox, type WidgetBox } from '../appearance/appearance-stream.js';
import { num } from '../content-ops.js';
import type { FontSet } from '../fonts/fonts.js';
import { N } from '../pdf-objects.js';

/** Bezier handle length for a quarter circle. */
const KAPPA = 0.5523;
/** The dot of a chosen radio button, as a share of the circle's radius. */
const DOT = 0.5;

function circle(cx: number, cy: number, r: number): string {
  const k = r * KAPPA;
  const p = (x: number, y: number) => `${num(x)} ${num(y)}`;
  return [
    `${p(cx + r, cy)} m`,
    `${p(cx + r, cy + k)} ${p(cx + k, cy + r)} ${p(cx, cy + r)} c`,
    `${p(cx - k, cy + r)} ${p(cx - r, cy + k)} ${p(cx - r, cy)} c`,
    `${p(cx - r, cy - k)} ${p(cx - k, cy - r)} ${p(cx, cy - r)} c`,
    `${p(cx + k, cy - r)} ${p(cx + r, cy - k)} ${p(cx + r, cy)} c`,
  ].join(' ');
}

/** A radio button's round background and border inside its box. */
function roundFrame(box: WidgetBox): string {
  const r = Math.min(box.width, box.height) / 2;
  const [cx, cy] = [box.width / 2, box.height / 2];
  const ops: string[] = [];
  if (box.background) ops.push(`${box.background} ${circle(cx, cy, r)} f`);
  if (box.borderColor && box.border > 0)
    ops.push(`${box.borderColor} ${num(box.border)} w ${circle(cx, cy, r - box.border / 2)} S`);
  return ops.join('\n');
}

function drawRadio(widget: PDFDict, onState: string): void {
  const box = widgetBox(widget);
  if (!box) return;
  const ctx = widget.context;
  const off = roundFrame(box);
  const r = (Math.min(box.width, box.height) / 2) * DOT;
  const normal = ctx.obj({});
  normal.set(
    PDFName.of(onState),
    formXObject(widget, box, `${off}\n0 g ${circle(box.width / 2, box.height / 2, r)} f`),
  );
  normal.set(OFF, formXObject(widget, box, off));
  widget.set(N('AP'), ctx.obj({ N: normal }));
}

/**
 * Gives a new check box or radio widget its /AP /N (`onState` and Off) and /AS Off. The box comes from
 * the widget's /Rect and /MK, so this runs after every edit has set them.
 */
export function drawNewButton(widget: PDFDict, fonts: FontSet, radio: boolean, onState: string): void {
  if (radio) drawRadio(widget, onState);
  else ensureOnAppearance(widget.context, fonts, widget, onState, false);
  widget.set(N('AS'), OFF);
}
