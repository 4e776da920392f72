// Advance widths and codes of characters in a standard-14 face, from pdf-lib's own AFM tables and
// WinAnsi encoding. pdf-lib looks both up by glyph name on every call; a 700-field render measured
// the same few dozen characters thousands of times, so each character is looked up once per face.
//
// Widths are plain advances, without the AFM's pair kerning that PDFFont.widthOfTextAtSize adds:
// Tj draws every glyph at its advance (PDF 32000-1, 9.4.4), so the kerned width was not the width
// drawn, and centred or right-aligned values sat a little off.
import type { PDFFont } from '@cantoo/pdf-lib';
import { Encodings } from '@cantoo/pdf-lib/standard-fonts';

/** The parts of pdf-lib's StandardFontEmbedder used here (stable across pdf-lib and the cantoo fork). */
interface StandardEmbedder {
  encoding: { supportedCodePoints: number[]; encodeUnicodeCodePoint(cp: number): { code: number; name: string } };
  widthOfGlyph(name: string): number;
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

  constructor(private readonly embedder: StandardEmbedder) {}

  /** The character's code and advance; one the face cannot encode is drawn as "?", as pdf-lib does. */
  glyph(ch: string): StandardGlyph {
    let g = this.glyphs.get(ch);
    if (!g) {
      let enc: { code: number; name: string };
      try {
        enc = this.embedder.encoding.encodeUnicodeCodePoint(ch.codePointAt(0)!);
      } catch {
        enc = this.embedder.encoding.encodeUnicodeCodePoint(0x3f);
      }
      const cp = ch.codePointAt(0)!;
      g = {
        hex: enc.code.toString(16).padStart(2, '0').toUpperCase(),
        w: this.embedder.widthOfGlyph(enc.name) / 1000,
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
      for (const cp of this.embedder.encoding.supportedCodePoints)
        this.byCode.set(this.embedder.encoding.encodeUnicodeCodePoint(cp).code, String.fromCodePoint(cp));
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
      this.faces.set(font.name, (m = new FaceMetrics(embedder)));
    }
    return m;
  }
}
