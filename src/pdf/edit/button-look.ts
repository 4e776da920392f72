// Appearances of the check boxes and radio buttons the editor creates: an Off look (the square or
// circle border of /MK) and an on look (the same with a ZapfDingbats check, or a dot), as Acrobat
// draws its own "check" and "circle" styles. Existing buttons keep the appearances they came with.
import { PDFName, StandardFonts, type PDFDict, type PDFFont } from '@cantoo/pdf-lib';
import { formXObject, frameOps, num, widgetBox, type WidgetBox } from '../appearance/appearance-stream.js';
import type { FontSet } from '../appearance/fonts.js';
import { N } from '../pdf-objects.js';

/** The mark fills this share of the smaller side, as in markStream (appearance-button.ts). */
const MARK_SHARE = 0.8;
/** Bezier handle length for a quarter circle. */
const KAPPA = 0.5523;

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

/** A radio button's round border (and background) inside its box. */
function roundFrame(box: WidgetBox): string {
  const r = Math.min(box.width, box.height) / 2;
  const [cx, cy] = [box.width / 2, box.height / 2];
  const ops: string[] = [];
  if (box.background) ops.push(`${box.background} ${circle(cx, cy, r)} f`);
  if (box.borderColor && box.border > 0)
    ops.push(`${box.borderColor} ${num(box.border)} w ${circle(cx, cy, r - box.border / 2)} S`);
  return ops.join('\n');
}

function checkMark(box: WidgetBox, font: PDFFont): string {
  const check = '\u2714'; // ZapfDingbats code 0x34 ("4"), the /MK /CA of a check box
  const size = Math.min(box.width, box.height) * MARK_SHARE;
  const x = (box.width - font.widthOfTextAtSize(check, size)) / 2;
  const y = (box.height - size * 0.7) / 2;
  const hex = font.encodeText(check).toString();
  return `q BT 0 g /ZaDb ${num(size)} Tf ${num(x)} ${num(y)} Td ${hex} Tj ET Q`;
}

/**
 * Gives a check box or radio widget an /AP /N with `onState` and Off (and a matching /D), and sets /AS
 * to `selected` or Off. The box comes from the widget's /Rect and /MK, so call it after they are set.
 */
export function drawButton(widget: PDFDict, fonts: FontSet, radio: boolean, onState: string, selected = false): void {
  const box = widgetBox(widget);
  if (!box) return;
  const ctx = widget.context;
  const off = radio ? roundFrame(box) : frameOps(box);
  let on: string;
  let resources: PDFDict | undefined;
  if (radio) {
    const r = (Math.min(box.width, box.height) / 2) * 0.5;
    on = `${off}\n0 g ${circle(box.width / 2, box.height / 2, r)} f`;
  } else {
    const font = fonts.standardFont(StandardFonts.ZapfDingbats);
    on = `${off}\n${checkMark(box, font)}`;
    resources = ctx.obj({ Font: { ZaDb: font.ref } });
  }
  const state = PDFName.of(onState);
  const normal = ctx.obj({});
  normal.set(state, formXObject(widget, box, on, resources));
  normal.set(N('Off'), formXObject(widget, box, off));
  widget.set(N('AP'), ctx.obj({ N: normal }));
  widget.set(N('AS'), selected ? state : N('Off'));
}
