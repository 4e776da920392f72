// Advance widths and codes of characters in a standard-14 face, from pdf-lib's own AFM tables and
// WinAnsi encoding. pdf-lib looks both up by glyph name on every call; a 700-field render measured
// the same few dozen characters thousands of times, so each character is looked up once per face.
// The widths come from a table generated from pdf-lib's (standard-widths.ts): reading a face's AFM costs
// a one-shot render 14-27 ms; the face's embedder (its AFM) is read only for a code the table lacks.
//
// Widths are plain advances, without the AFM's pair kerning that PDFFont.widthOfTextAtSize adds:
// Tj draws every glyph at its advance (PDF 32000-1, 9.4.4), so the kerned width was not the width
// drawn, and centred or right-aligned values sat a little off.
import type { PDFFont } from '@cantoo/pdf-lib';
import { Encodings, FontNames } from '@cantoo/pdf-lib/standard-fonts';
import { STANDARD_WIDTHS } from './standard-widths.js';

/** The parts of pdf-lib's StandardFontEmbedder used here (stable across pdf-lib and the cantoo fork). */
interface StandardEmbedder {
  widthOfGlyph(name: string): number;
}

type Encoding = (typeof Encodings)[keyof typeof Encodings];

/** The encoding pdf-lib's StandardFontEmbedder gives a standard face (tested against it). */
export function encodingOf(face: string): Encoding {
  if (face === FontNames.ZapfDingbats) return Encodings.ZapfDingbats;
  return face === FontNames.Symbol ? Encodings.Symbol : Encodings.WinAnsi;
}

/** The generated widths of `face` by code (-1: none), or undefined for a face the table does not have. */
function widthTable(face: string): Int16Array | undefined {
  const row = Object.hasOwn(STANDARD_WIDTHS, face) ? STANDARD_WIDTHS[face] : undefined;
  if (row === undefined) return undefined;
  const widths = new Int16Array(256).fill(-1);
  row.split(',').forEach((w, code) => {
    if (w) widths[code] = Number.parseInt(w, 36);
  });
  return widths;
}

export interface StandardGlyph {
  /** the character code as two hex digits, as PDFFont.encodeText writes it */
  hex: string;
  /** advance at 1 pt */
  w: number;
  /** WinAnsi encodes the character and it is not a control character (line breaks aside) */
  winAnsi: boolean;
}

export class FaceMetrics {
  private readonly glyphs = new Map<string, StandardGlyph>();
  /** character code -> the character the face encodes with it (made on first use) */
  private byCode?: Map<number, string>;
  private readonly encoding: Encoding;
  private readonly widths: Int16Array | undefined;

  constructor(
    face: string,
    private readonly embedder: StandardEmbedder,
  ) {
    this.encoding = encodingOf(face);
    this.widths = widthTable(face);
  }

  /** The character's code and advance; one the face cannot encode is drawn as "?", as pdf-lib does. */
  glyph(ch: string): StandardGlyph {
    let g = this.glyphs.get(ch);
    if (!g) {
      let enc: { code: number; name: string };
      try {
        enc = this.encoding.encodeUnicodeCodePoint(ch.codePointAt(0)!);
      } catch {
        enc = this.encoding.encodeUnicodeCodePoint(0x3f);
      }
      const cp = ch.codePointAt(0)!;
      const tabled = this.widths?.[enc.code] ?? -1;
      g = {
        hex: enc.code.toString(16).padStart(2, '0').toUpperCase(),
        w: (tabled >= 0 ? tabled : this.embedder.widthOfGlyph(enc.name)) / 1000,
        winAnsi: ch === '\r' || ch === '\n' || (cp >= 0x20 && Encodings.WinAnsi.canEncodeUnicodeCodePoint(cp)),
      };
      this.glyphs.set(ch, g);
    }
    return g;
  }

  /** The character the face encodes as `code` (ZapfDingbats' /MK /CA captions are such codes). */
  charOf(code: number): string | undefined {
    if (!this.byCode) {
      this.byCode = new Map();
      for (const cp of this.encoding.supportedCodePoints)
        this.byCode.set(this.encoding.encodeUnicodeCodePoint(cp).code, String.fromCodePoint(cp));
    }
    return this.byCode.get(code);
  }
}

/**
 * Metrics per standard face, owned by the process's FontLibrary (built in the composition root):
 * the tables depend on the face only, never on the document that embeds it.
 */
export class StandardMetrics {
  private readonly faces = new Map<string, FaceMetrics>();

  of(font: PDFFont): FaceMetrics {
    let m = this.faces.get(font.name);
    if (!m) {
      const embedder = (font as unknown as { embedder: StandardEmbedder }).embedder;
      this.faces.set(font.name, (m = new FaceMetrics(font.name, embedder)));
    }
    return m;
  }
}
