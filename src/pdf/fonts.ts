// Fonts for appearance streams. Field /DA fonts are mapped to a standard-14 face (WinAnsi only);
// text those faces cannot encode is drawn with a subset of a bundled Unicode font, chosen per run
// of characters through a fallback chain (Noto Sans: Latin/Greek/Cyrillic; Noto Sans SC: CJK + kana).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@cantoo/fontkit';
import { PDFDocument, PDFFont, StandardFonts } from '@cantoo/pdf-lib';
import { Encodings } from '@cantoo/pdf-lib/standard-fonts';

/** The bundled fallback chain, in order of preference. Files are read and parsed once per process. */
const FALLBACK_FILES = [
  '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
];

interface Glyph {
  advanceWidth: number;
}

interface KitFont {
  hasGlyphForCodePoint(cp: number): boolean;
  glyphForCodePoint(cp: number): Glyph;
  layout(text: string, features?: unknown): { glyphs: Glyph[]; positions: unknown[] };
}

interface ParsedFont {
  bytes: Uint8Array;
  font: KitFont;
}

/** Scripts and marks that need real shaping (reordering, joining, mark positioning). */
const NEEDS_SHAPING = /[\p{M}\u0590-\u08ff\u0900-\u0dff\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u200c\u200d]/u;

/**
 * fontkit's full OpenType layout costs ~1 ms per call on the CJK font and pdf-lib calls it for every
 * measurement and encoding. Form values in Latin, Greek, Cyrillic and CJK need no shaping (viewers
 * do not kern form fields either), so those map code points straight to glyphs.
 */
function withFastLayout(font: KitFont): KitFont {
  const full = font.layout.bind(font);
  font.layout = (text: string, features?: unknown) => {
    if (NEEDS_SHAPING.test(text)) return full(text, features);
    const glyphs: Glyph[] = [];
    for (const ch of text) glyphs.push(font.glyphForCodePoint(ch.codePointAt(0)!));
    return { glyphs, positions: glyphs.map((g) => ({ xAdvance: g.advanceWidth, yAdvance: 0, xOffset: 0, yOffset: 0 })) };
  };
  return font;
}

const require = createRequire(import.meta.url);
const parsedFonts: (ParsedFont | null | undefined)[] = [];
const parsedByBytes = new WeakMap<Uint8Array, unknown>();

function fallbackFont(index: number): ParsedFont | null {
  let entry = parsedFonts[index];
  if (entry === undefined) {
    try {
      const bytes = new Uint8Array(readFileSync(require.resolve(FALLBACK_FILES[index])));
      const font = withFastLayout(fontkit.create(bytes) as unknown as KitFont);
      parsedByBytes.set(bytes, font);
      entry = { bytes, font };
    } catch {
      entry = null; // a missing optional font package only narrows coverage
    }
    parsedFonts[index] = entry;
  }
  return entry;
}

/**
 * fontkit as pdf-lib sees it: `create` returns the process-wide parsed font for our cached bytes,
 * so embedding a subset does not re-parse a 10 MB CJK font on every render.
 */
const cachingFontkit = {
  ...fontkit,
  create(bytes: Uint8Array, postscriptName?: string) {
    return parsedByBytes.get(bytes) ?? (postscriptName ? fontkit.create(bytes as Buffer, postscriptName) : fontkit.create(bytes as Buffer));
  },
} as unknown as typeof fontkit;

export function canWinAnsi(text: string): boolean {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || !Encodings.WinAnsi.canEncodeUnicodeCodePoint(cp)) return false;
  }
  return true;
}

/** Maps a /DA font (resource name or BaseFont) to the closest standard-14 face. */
export function standardFaceFor(fontName: string): StandardFonts {
  const n = fontName.toLowerCase();
  const bold = /bold|,bd|-bd|black|heavy/.test(n);
  const italic = /italic|oblique|,it|-it\b/.test(n);
  if (/tim|serif(?!.*sans)|roman|georgia|garamond/.test(n) && !/sans/.test(n)) {
    if (bold && italic) return StandardFonts.TimesRomanBoldItalic;
    return bold ? StandardFonts.TimesRomanBold : italic ? StandardFonts.TimesRomanItalic : StandardFonts.TimesRoman;
  }
  if (/cour|mono/.test(n)) {
    if (bold && italic) return StandardFonts.CourierBoldOblique;
    return bold ? StandardFonts.CourierBold : italic ? StandardFonts.CourierOblique : StandardFonts.Courier;
  }
  if (bold && italic) return StandardFonts.HelveticaBoldOblique;
  return bold ? StandardFonts.HelveticaBold : italic ? StandardFonts.HelveticaOblique : StandardFonts.Helvetica;
}

export interface TextRun {
  font: PDFFont;
  text: string;
}

/**
 * The fonts of one render: each face is embedded at most once per document. `shared` holds faces a
 * prepared template already embedded in its base file; they are reused, never embedded again.
 */
export class FontSet {
  private readonly standard = new Map<StandardFonts, PDFFont>();
  private readonly fallbacks = new Map<number, PDFFont>();
  readonly missing = new Set<string>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly shared: ReadonlyMap<StandardFonts, PDFFont> = new Map(),
  ) {
    doc.registerFontkit(cachingFontkit);
  }

  standardFont(face: StandardFonts): PDFFont {
    let font = this.shared.get(face) ?? this.standard.get(face);
    if (!font) this.standard.set(face, (font = this.doc.embedStandardFont(face)));
    return font;
  }

  /** The standard faces this set embedded itself (a prepared template keeps them for its renders). */
  embeddedStandardFonts(): ReadonlyMap<StandardFonts, PDFFont> {
    return this.standard;
  }

  private async fallback(index: number): Promise<PDFFont | null> {
    const cached = this.fallbacks.get(index);
    if (cached) return cached;
    const parsed = fallbackFont(index);
    if (!parsed) return null;
    const font = await this.doc.embedFont(parsed.bytes, { subset: true });
    this.fallbacks.set(index, font);
    return font;
  }

  /** Index of the first fallback font with a glyph for cp, or -1. */
  private coverage(cp: number): number {
    for (let i = 0; i < FALLBACK_FILES.length; i++) {
      const parsed = fallbackFont(i);
      if (parsed?.font.hasGlyphForCodePoint(cp)) return i;
    }
    return -1;
  }

  /** Embeds (once) every fallback font `runs` will need for this text. Call before `runs`. */
  async prepare(text: string): Promise<void> {
    // Line breaks are layout (wrapped or turned into spaces), never drawn: they need no font.
    if (canWinAnsi(text.replace(/[\r\n]+/g, ' '))) return;
    for (const idx of this.plan(text)) if (idx >= 0) await this.fallback(idx);
  }

  /** For each character, the fallback index that draws it (-1: none has it). */
  private plan(text: string): number[] {
    const chars = Array.from(text);
    const has = (i: number, c: string) => !!fallbackFont(i)?.font.hasGlyphForCodePoint(c.codePointAt(0)!);
    // One font for the whole value when one covers it: mixed faces inside a word look broken.
    const whole = FALLBACK_FILES.findIndex((_, i) => chars.every((c) => /\s/.test(c) || has(i, c)));
    if (whole >= 0) return chars.map(() => whole);
    let current = -1;
    return chars.map((c) => {
      if (/\s/.test(c)) return Math.max(current, 0);
      const idx = current >= 0 && has(current, c) ? current : this.coverage(c.codePointAt(0)!);
      if (idx >= 0) current = idx;
      return idx;
    });
  }

  /**
   * Splits text into runs drawable with `base` (when it is all WinAnsi) or the fallback chain.
   * Characters no font has are dropped and reported in `missing`. `prepare` must have run.
   */
  runs(text: string, base: PDFFont): TextRun[] {
    if (canWinAnsi(text)) return text ? [{ font: base, text }] : [];
    const plan = this.plan(text);
    const runs: TextRun[] = [];
    let i = 0;
    let prev: PDFFont | undefined;
    for (const ch of text) {
      const font = plan[i] >= 0 ? this.fallbacks.get(plan[i]) : undefined;
      i++;
      if (!font) {
        this.missing.add(ch);
        continue;
      }
      if (font === prev) runs[runs.length - 1].text += ch;
      else runs.push({ font, text: ch });
      prev = font;
    }
    return runs;
  }
}

export function runsWidth(runs: TextRun[], size: number): number {
  let w = 0;
  for (const r of runs) w += r.font.widthOfTextAtSize(r.text, size);
  return w;
}
