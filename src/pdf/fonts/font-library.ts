// The bundled fallback fonts of one process and what is worth remembering about them between
// renders: the parsed fonts, which fonts have a glyph for a code point, and shaped words (fontkit's
// OpenType layout is most of a Unicode render's cost). Nothing here depends on a document, so one
// library serves every template; the composition root (in-process engine, render worker) creates it
// and passes it down. Per-template state (the subsets) lives in the prepared template instead.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fontkit from '@cantoo/fontkit';
import type { KitFont, ParsedFont, ShapedCluster } from './font-types.js';
import { withTrueCodePoints } from './unicode-font.js';
import { openFontFile } from './font-file.js';
import { StandardMetrics } from './standard-metrics.js';
import { Lru } from '../../lib/lru.js';
import { CodePointRanges } from './coverage-ranges.js';
import { FALLBACK_COVERAGE } from './fallback-coverage.js';

/** The bundled fallback chain, in order of preference. Files are read and parsed once per library. */
export const FALLBACK_FILES = [
  '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  '@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf',
  '@expo-google-fonts/noto-sans-hebrew/400Regular/NotoSansHebrew_400Regular.ttf',
  '@expo-google-fonts/noto-sans-devanagari/400Regular/NotoSansDevanagari_400Regular.ttf',
  '@expo-google-fonts/noto-sans-thai/400Regular/NotoSansThai_400Regular.ttf',
  '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
  '@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf',
  '@expo-google-fonts/noto-sans-symbols-2/400Regular/NotoSansSymbols2_400Regular.ttf',
  '@expo-google-fonts/noto-sans-symbols/400Regular/NotoSansSymbols_400Regular.ttf',
];

/**
 * Fonts from this index on are symbol fonts: they draw the symbols no text font has, but the text
 * around a symbol goes on in the text font (their digits and Latin letters are not meant for text).
 */
export const FIRST_SYMBOL_FONT = FALLBACK_FILES.length - 2;

/**
 * A value's text cut into what it is drawn with (see FontSet.shape): runs of one fallback font and
 * one bidi level (characters already mirrored), line breaks, and characters no font has.
 */
export type PlannedPart =
  | { kind: 'run'; font: number; text: string; level: number; para: number }
  | { kind: 'break'; ch: string }
  | { kind: 'missing'; ch: string };

export interface FontLibraryOptions {
  /** shaped words, and planned values, kept (least recently used dropped first); 0 shapes every time */
  shapeCacheEntries: number;
  /** the fallback fonts' generated coverage (tests give another) */
  coverage?: typeof FALLBACK_COVERAGE;
  /** loads fontkit on the first font parsed (default: the package; the offline CLI loads its code-cached bundle) */
  loadFontkit?: () => typeof Fontkit;
}

const require = createRequire(import.meta.url);
/**
 * fontkit, loaded when the first fallback font is parsed: most renders draw only the standard faces,
 * and loading it (its sources, brotli's dictionary, restructure) costs a render worker ~10 MB RSS.
 * Synchronous through require (its CommonJS build, the same code); Node caches the module.
 */
const loadFontkit = () => require('@cantoo/fontkit') as typeof Fontkit;
/**
 * Values longer than this are planned on every render: what repeats between renders (names, labels,
 * options) is short, and a long text would hold memory for little gain.
 */
const MAX_PLANNED_TEXT = 256;
/** Characters of planned values kept in all (about 2 MB of strings and parts at most). */
const PLANNED_CHARS = 256 * 1024;
/** Code points whose coverage is remembered; past this the memo starts over (text is bounded anyway). */
const MAX_COVERAGE_ENTRIES = 65_536;
/** In a coverage entry, the bits saying which fonts were asked sit this far above those saying which have the glyph. */
const KNOWN_SHIFT = 16;

export class FontLibrary {
  private readonly parsed: (ParsedFont | null | undefined)[] = [];
  /** per fallback font: the generated table of its code points (null: none, or its file is not the table's) */
  private readonly tables: (CodePointRanges | null | undefined)[] = [];
  /**
   * code point -> what is known of it: bit i when fallback font i has a glyph for it, bit 16 + i once
   * font i was asked (fonts are parsed only when asked: a value's first covering font is often the first)
   */
  private readonly coverage = new Map<number, number>();
  /** font key -> code point -> its glyph and width (text that needs no shaping) */
  private readonly glyphs = new Map<string, Map<number, { gid: number; w0: number }>>();
  /** `${font}\0${rtl}\0${word}` -> clusters */
  private readonly shaped: Lru<string, ShapedCluster[]>;
  /** non-WinAnsi value text -> its planned parts */
  private readonly planned: Lru<string, PlannedPart[]>;
  /** codes and advances of the standard faces */
  readonly standard = new StandardMetrics();

  private readonly coverageTable: typeof FALLBACK_COVERAGE;
  private readonly loadFontkit: () => typeof Fontkit;

  constructor(opts: FontLibraryOptions = { shapeCacheEntries: 4096 }) {
    this.coverageTable = opts.coverage ?? FALLBACK_COVERAGE;
    this.loadFontkit = opts.loadFontkit ?? loadFontkit;
    this.shaped = new Lru(opts.shapeCacheEntries);
    // Values, unlike words, can be long: the memo holds at most PLANNED_CHARS characters of them.
    this.planned = new Lru(opts.shapeCacheEntries, PLANNED_CHARS, (parts) => plannedLength(parts));
  }

  /** Fallback font `index`, parsed on first use; null when its package is missing. */
  font(index: number): ParsedFont | null {
    let entry = this.parsed[index];
    if (entry === undefined) {
      const fontkit = this.loadFontkit(); // outside the try: a missing fontkit is an error, not a missing font
      try {
        // the glyph outlines are read as glyphs are first used (font-file.ts)
        const file = openFontFile(require.resolve(FALLBACK_FILES[index]));
        entry = {
          key: FALLBACK_FILES[index],
          font: withTrueCodePoints(file.attach(fontkit.create(file.bytes) as unknown as KitFont)),
        };
      } catch {
        entry = null; // a missing optional font package only narrows coverage
      }
      this.parsed[index] = entry;
    }
    return entry;
  }

  /** Whether fallback font `index` has a glyph for `cp` (false when its package is missing). */
  has(index: number, cp: number): boolean {
    // the generated table answers in a binary search; the memo is for fonts without a usable table (an
    // installed file that is not the one the table was made from)
    const table = this.table(index);
    if (table) return table.has(cp);
    const entry = this.coverage.get(cp);
    const bit = 1 << index;
    if (entry !== undefined && entry & (bit << KNOWN_SHIFT)) return (entry & bit) !== 0;
    const has = this.font(index)?.font.hasGlyphForCodePoint(cp) ?? false;
    if (entry === undefined && this.coverage.size >= MAX_COVERAGE_ENTRIES) this.coverage.clear();
    this.coverage.set(cp, (entry ?? 0) | (bit << KNOWN_SHIFT) | (has ? bit : 0));
    return has;
  }

  /**
   * The generated coverage of fallback font `index` (fallback-coverage.ts), when its installed file is the
   * one the table was made from (same size): asking it needs no read or parse of the font.
   */
  private table(index: number): CodePointRanges | null {
    let t = this.tables[index];
    if (t === undefined) {
      t = null;
      const entry = this.coverageTable[index];
      try {
        if (entry?.file === FALLBACK_FILES[index] && statSync(require.resolve(entry.file)).size === entry.size)
          t = new CodePointRanges(entry.ranges);
      } catch {
        // a missing package: font() says so, as before
      }
      this.tables[index] = t;
    }
    return t;
  }

  /**
   * The first fallback font, in order of preference, with a glyph for every one of `cps` (-1: none). Fonts
   * are asked in that order, so the fonts after the answer are never parsed for it: a value in Latin or
   * Greek letters does not read the 10 MB Chinese font.
   */
  firstCovering(cps: readonly number[]): number {
    for (let i = 0; i < FALLBACK_FILES.length; i++) if (cps.every((cp) => this.has(i, cp))) return i;
    return -1;
  }

  /** The glyph `font` draws `cp` with (no shaping) and its width in thousandths of the font size. */
  glyphFor(font: ParsedFont, cp: number): { gid: number; w0: number } {
    let perFont = this.glyphs.get(font.key);
    if (!perFont) this.glyphs.set(font.key, (perFont = new Map()));
    let g = perFont.get(cp);
    if (!g) {
      const glyph = font.font.glyphForCodePoint(cp);
      g = { gid: glyph.id, w0: Math.round((glyph.advanceWidth * 1000) / font.font.unitsPerEm) };
      if (perFont.size >= MAX_COVERAGE_ENTRIES) perFont.clear();
      perFont.set(cp, g);
    }
    return g;
  }

  /** The clusters of `word` shaped with `font`, from the cache or from `shape()` (then kept). */
  shapedWord(font: ParsedFont, word: string, rtl: boolean, shape: () => ShapedCluster[]): ShapedCluster[] {
    return this.shaped.remember(`${font.key}\0${rtl ? 1 : 0}\0${word}`, shape);
  }

  /** The planned parts of a value's text, from the cache or from `plan()` (then kept, when short). */
  plannedText(text: string, plan: () => PlannedPart[]): PlannedPart[] {
    if (text.length > MAX_PLANNED_TEXT) return plan();
    return this.planned.remember(text, plan);
  }
}

/** The characters a plan holds (its weight in the memo). */
function plannedLength(parts: PlannedPart[]): number {
  let n = 0;
  for (const p of parts) n += p.kind === 'run' ? p.text.length : p.ch.length;
  return n;
}
