// The look of a visible signature: a Form XObject the size of the signature widget holding a few lines
// (who signed, when, why) in Helvetica, sized to fit the box, dark blue as readers draw signed stamps.
// Lines that do not fit at a legible size are dropped from the last; characters Helvetica's WinAnsi
// encoding lacks are shown as "?" (the signer's name stays exact in the signature dictionary's /Name).
import { PDFName, StandardFontEmbedder, StandardFonts, type PDFContext, type PDFRef } from '@cantoo/pdf-lib';
import { num } from '../content-ops.js';

const PAD = 2;
const LEADING = 1.2;
const MAX_SIZE = 11;
/** below this a line is dropped rather than drawn illegibly small */
const MIN_SIZE = 5;

/** `text` with every character the font cannot encode replaced by "?". */
function encodable(font: StandardFontEmbedder, text: string): string {
  let out = '';
  for (const ch of text) {
    try {
      font.encodeText(ch);
      out += ch;
    } catch {
      out += '?';
    }
  }
  return out;
}

/** The largest size at which every line fits the box, capped at MAX_SIZE. */
function fittingSize(font: StandardFontEmbedder, lines: string[], width: number, height: number): number {
  let size = Math.min(MAX_SIZE, (height - 2 * PAD) / (lines.length * LEADING));
  for (const line of lines) {
    const w = font.widthOfTextAtSize(line, 1);
    if (w > 0) size = Math.min(size, (width - 2 * PAD) / w);
  }
  return size;
}

/** A Form XObject `width` x `height` showing `lines`, top-left aligned, registered in `ctx`. */
export function signatureAppearance(ctx: PDFContext, width: number, height: number, lines: string[]): PDFRef {
  const font = StandardFontEmbedder.for(
    StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0],
  );
  let shown = lines.map((l) => encodable(font, l));
  let size = fittingSize(font, shown, width, height);
  while (size < MIN_SIZE && shown.length > 1) {
    shown = shown.slice(0, -1);
    size = fittingSize(font, shown, width, height);
  }
  const ops: string[] = [];
  if (size > 0) {
    ops.push('/Tx BMC q BT 0.05 0.15 0.45 rg', `/F1 ${num(size)} Tf`);
    const ascent = font.heightOfFontAtSize(size, { descender: false });
    ops.push(`${num(PAD)} ${num(height - PAD - ascent)} Td`, `${num(size * LEADING)} TL`);
    for (const [i, line] of shown.entries()) ops.push(`${i ? 'T* ' : ''}${font.encodeText(line).toString()} Tj`);
    ops.push('ET Q EMC');
  }
  const fontRef = font.embedIntoContext(ctx);
  const stream = ctx.flateStream(ops.join('\n'), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, width, height],
    Resources: { Font: { F1: fontRef }, ProcSet: [PDFName.of('PDF'), PDFName.of('Text')] },
  });
  return ctx.register(stream);
}
