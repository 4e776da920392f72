// Fonts for appearance streams. Field /DA fonts are mapped to a standard-14 face (WinAnsi only);
// text those faces cannot encode is drawn with a subset of a bundled Unicode font, chosen per run
// of characters through a fallback chain (Noto Sans: Latin/Greek/Cyrillic, then Arabic, Hebrew,
// Devanagari, Thai, SC: CJK + kana, KR: Hangul, Symbols 2: check boxes and dingbats, Symbols).
// Those are embedded by unicode-font.ts (CID fonts showing glyph ids) and shaped by text-shaping.ts.
import { type PDFDocument, type PDFFont, StandardFonts } from '@cantoo/pdf-lib';
import { mirrored, resolveLevels } from './bidi.js';
import { embedStandardFace } from './lazy-standard-font.js';
import { FIRST_SYMBOL_FONT, type FontLibrary, type PlannedPart } from './font-library.js';
import { streamSafe } from './stream-safe.js';
import { shapeRun, type LayoutUnit } from './text-shaping.js';
import { UnicodeFont, type FontSubsets } from './unicode-font.js';

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

/**
 * The fonts of one render: each face is embedded at most once per document. `library` holds the
 * parsed fallback fonts and shaped words (per process), `subsets` the glyphs this document (template)
 * used so far (per prepared template). `shared` holds faces a prepared template already embedded in
 * its base file; they are reused, never embedded again.
 */
export class FontSet {
  private readonly standard = new Map<StandardFonts, PDFFont>();
  private readonly fallbacks = new Map<number, UnicodeFont>();
  private readonly plain = new Map<PDFFont, Map<string, LayoutUnit | null>>();
  readonly missing = new Set<string>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly library: FontLibrary,
    private readonly subsets: FontSubsets,
    private readonly shared: ReadonlyMap<StandardFonts, PDFFont> = new Map(),
  ) {}

  standardFont(face: StandardFonts): PDFFont {
    let font = this.shared.get(face) ?? this.standard.get(face);
    if (!font) this.standard.set(face, (font = embedStandardFace(this.doc, face)));
    return font;
  }

  /** The character standard face `font` encodes as `code` (from the library's metrics of the face). */
  standardCharOf(font: PDFFont, code: number): string | undefined {
    return this.library.standard.of(font).charOf(code);
  }

  /** The standard faces this set embedded itself (a prepared template keeps them for its renders). */
  embeddedStandardFonts(): ReadonlyMap<StandardFonts, PDFFont> {
    return this.standard;
  }

  /** The Unicode font of this render for fallback `index` (its subset is cached per document). */
  private fallback(index: number): UnicodeFont | null {
    const cached = this.fallbacks.get(index);
    if (cached) return cached;
    const parsed = this.library.font(index);
    if (!parsed) return null;
    const font = new UnicodeFont(this.doc, parsed, this.subsets);
    this.fallbacks.set(index, font);
    return font;
  }

  /** Index of the first fallback font with a glyph for cp, or -1. */
  private coverage(cp: number): number {
    return this.library.firstCovering([cp]);
  }

  /**
   * The unit of each WinAnsi character of standard face `base` (null: not WinAnsi). Units are never
   * changed once made, so a render shares one per character and face: a 600-field form draws
   * thousands of characters, a few dozen distinct.
   */
  private plainUnits(base: PDFFont): (ch: string) => LayoutUnit | null {
    let units = this.plain.get(base);
    if (!units) this.plain.set(base, (units = new Map()));
    const memo = units;
    const metrics = this.library.standard.of(base);
    return (ch) => {
      let unit = memo.get(ch);
      if (unit === undefined) {
        const g = metrics.glyph(ch);
        unit = g.winAnsi ? { ch, font: base, level: 0, para: 0, w: g.w, hex: g.hex } : null;
        memo.set(ch, unit);
      }
      return unit;
    };
  }

  /** For each character, the fallback index that draws it (-1: none has it). */
  private plan(chars: string[]): number[] {
    const has = (i: number, c: string) => this.library.has(i, c.codePointAt(0)!);
    // One font for the whole value when one covers it: mixed faces inside a word look broken.
    const whole = this.library.firstCovering(chars.filter((c) => !/\s/.test(c)).map((c) => c.codePointAt(0)!));
    if (whole >= 0) return chars.map(() => whole);
    let current = -1;
    return chars.map((c) => {
      if (/\s/.test(c)) return Math.max(current, 0);
      const idx = current >= 0 && has(current, c) ? current : this.coverage(c.codePointAt(0)!);
      if (idx >= 0 && idx < FIRST_SYMBOL_FONT) current = idx;
      return idx;
    });
  }

  /**
   * Layout units for `text` in logical order: characters of `base` when the text is all WinAnsi
   * (line breaks apart), else shaped clusters of the fallback chain with their bidi levels. Line
   * breaks become units of their own ("\n", "\r") that are never drawn. Characters no font has are
   * dropped and reported in `missing`. Marks past Unicode's stream-safe limit are left out (stream-safe.ts).
   */
  shape(value: string, base: PDFFont): LayoutUnit[] {
    // bounded work per cluster whatever the caller sent (callers that warn have cut it already)
    const text = streamSafe(value).text;
    const units = this.plainUnits(base);
    const plain: LayoutUnit[] = [];
    for (const ch of text) {
      const unit = units(ch);
      if (!unit) break;
      plain.push(unit);
    }
    if (plain.length === text.length) return plain; // every character WinAnsi (each one UTF-16 unit)
    // The plan depends on the text alone: values drawn before (by any template) skip the bidi and
    // font-choice passes; the runs' clusters come from the template's own memo (UnicodeFont).
    const shaped: LayoutUnit[] = [];
    for (const part of this.library.plannedText(text, () => this.planText(text))) {
      if (part.kind === 'break') shaped.push({ ch: part.ch, font: base, level: 0, para: 0 });
      else if (part.kind === 'missing') this.missing.add(part.ch);
      else {
        // planText put characters of a font that failed to load among the missing ones
        const font = this.fallback(part.font)!;
        shaped.push(...shapeRun(font, part.text, part.level, part.para, this.library));
      }
    }
    return shaped;
  }

  /** Runs of one fallback font and bidi level (mirrored when right-to-left), breaks, missing characters. */
  private planText(text: string): PlannedPart[] {
    const chars = Array.from(text);
    const plan = this.plan(chars);
    const bidi = resolveLevels(text);
    const parts: PlannedPart[] = [];
    let run: Extract<PlannedPart, { kind: 'run' }> | undefined;
    let offset = 0; // UTF-16 index of the character
    chars.forEach((ch, i) => {
      const at = offset;
      offset += ch.length;
      if (ch === '\n' || ch === '\r') {
        parts.push({ kind: 'break', ch });
        run = undefined;
        return;
      }
      if (plan[i] < 0 || !this.library.font(plan[i])) {
        parts.push({ kind: 'missing', ch });
        return;
      }
      const level = bidi ? bidi.levels[at] : 0;
      const para = bidi ? bidi.paragraphLevel(at) : 0;
      if (!run || run.font !== plan[i] || run.level !== level || run.para !== para) {
        run = { kind: 'run', font: plan[i], text: '', level, para };
        parts.push(run);
      }
      run.text += level & 1 ? mirrored(ch) : ch;
    });
    return parts;
  }
}
