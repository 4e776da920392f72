// The look of a visible signature: a Form XObject the size of the signature widget holding a few lines
// (who signed, when, why), sized to fit the box, dark blue as readers draw signed stamps. Text goes
// through the fill engine's fonts (FontSet): Helvetica for WinAnsi lines, else the bundled Unicode
// fonts, shaped and in bidi order, so a name in any script is drawn as written. Lines that do not fit
// at a legible size are dropped from the last. On a turned widget (/MK /R) the text is turned with it.
import { PDFDict, PDFName, StandardFonts, type PDFContext, type PDFObject, type PDFRef } from '@cantoo/pdf-lib';
import { FontNames, matrixFor } from '../appearance/appearance-stream.js';
import { num } from '../content-ops.js';
import type { FontSet } from '../fonts/fonts.js';
import { showUnits, unitsWidth, type LayoutUnit } from '../fonts/text-shaping.js';

const PAD = 2;
const LEADING = 1.2;
/** Arabic letters' dots and Devanagari's lower marks reach ~0.45 em below the baseline: more room */
const LEADING_UNICODE = 1.4;
const MAX_SIZE = 11;
/** below this a line is dropped rather than drawn illegibly small */
const MIN_SIZE = 5;
/** Helvetica's ascender per 1 pt; the bundled Noto fonts' accented capitals and ideographs reach ~0.9 */
const ASCENT_STANDARD = 0.718;
const ASCENT_UNICODE = 0.92;

/** The widget's box: its /Rect's size and the counter-clockwise turn of its appearance (/MK /R). */
export interface SignatureBox {
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
}

/** The largest size at which every line fits the box (text space), capped at MAX_SIZE. */
function fittingSize(lines: LayoutUnit[][], width: number, height: number, leading: number): number {
  let size = Math.min(MAX_SIZE, (height - 2 * PAD) / (lines.length * leading));
  for (const line of lines) {
    const w = unitsWidth(line);
    if (w > 0) size = Math.min(size, (width - 2 * PAD) / w);
  }
  return size;
}

/** A Form XObject for `box` showing `lines`, top-left aligned as the widget is read, registered in `ctx`. */
export function signatureAppearance(ctx: PDFContext, fonts: FontSet, box: SignatureBox, lines: string[]): PDFRef {
  // a turned widget's text runs along its other side
  const swap = box.rotation === 90 || box.rotation === 270;
  const width = swap ? box.height : box.width;
  const height = swap ? box.width : box.height;
  const base = fonts.standardFont(StandardFonts.Helvetica);
  let shown = lines.map((l) => fonts.shape(l, base));
  const unicode = shown.some((line) => line.some((u) => u.glyphs !== undefined));
  const leading = unicode ? LEADING_UNICODE : LEADING;
  let size = fittingSize(shown, width, height, leading);
  while (size < MIN_SIZE && shown.length > 1) {
    shown = shown.slice(0, -1);
    size = fittingSize(shown, width, height, leading);
  }
  const names = new FontNames();
  const ops: string[] = [];
  if (size > 0) {
    let y = height - PAD - size * (unicode ? ASCENT_UNICODE : ASCENT_STANDARD);
    ops.push('/Tx BMC q', `0 0 ${num(width)} ${num(height)} re W n`, 'BT 0.05 0.15 0.45 rg');
    for (const line of shown) {
      if (line.length) ops.push(`1 0 0 1 ${num(PAD)} ${num(y)} Tm ${showUnits(line, size, (f) => names.name(f))}`);
      y -= size * leading;
    }
    ops.push('ET Q EMC');
  }
  const font = new Map<PDFName, PDFObject>();
  for (const [f, n] of names.entries()) font.set(PDFName.of(n), f.ref);
  const stream = ctx.flateStream(ops.join('\n'), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, width, height],
    Matrix: matrixFor({ width, height, rotation: box.rotation, border: 0, borderStyle: 'S' }),
    Resources: { Font: PDFDict.fromMapWithContext(font, ctx), ProcSet: [PDFName.of('PDF'), PDFName.of('Text')] },
  });
  return ctx.register(stream);
}
