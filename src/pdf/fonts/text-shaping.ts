// Shaped text for appearance streams. Text is cut into layout UNITS in logical order: a character
// of a standard-14 face (WinAnsi, drawn as today with Tj), or a shaping cluster of a bundled Unicode
// font: the glyphs fontkit's OpenType layout engine produced for some characters (Arabic joining
// forms, Indic conjuncts and reordered matras, Thai marks positioned on their base), with their
// advances and offsets. Line breaking works on units; bidi reordering (bidi.ts) moves whole units.
import { PDFFont } from '@cantoo/pdf-lib';
import { visualOrder } from './bidi.js';
import { num } from '../content-ops.js';
import type { FontLibrary } from './font-library.js';
import type { KitFont, PlacedGlyph, ResolvedCluster, ShapedCluster, ShapedGlyph } from './font-types.js';
import { cidHex, utf16Hex, type UnicodeFont } from './unicode-font.js';

export type DrawFont = PDFFont | UnicodeFont;

export interface LayoutUnit {
  /** the characters (logical order); " " and "\n" are what line breaking looks for */
  ch: string;
  font: DrawFont;
  /** bidi embedding level (odd: right-to-left) */
  level: number;
  /** base level of the unit's paragraph */
  para: number;
  /** Unicode-font units: glyphs in logical order, and their total advance at 1 pt */
  glyphs?: PlacedGlyph[];
  /** advance at 1 pt: the glyphs' total (Unicode fonts) or the character's (standard faces) */
  w?: number;
  /** standard-face units: the character code as two hex digits */
  hex?: string;
  /**
   * Set when the glyphs show the characters in another order than they are written (a Devanagari
   * short i matra is drawn before its consonant): the unit is marked with /ActualText so text
   * extraction gives the logical order back.
   */
  actualText?: string;
}

/** Scripts and marks that need real shaping (reordering, joining, mark positioning). */
const NEEDS_SHAPING =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: a set of single code points (marks, ZWNJ/ZWJ), tested one at a time
  /[\p{M}\u0590-\u08ff\u0900-\u0dff\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u200c\u200d\ufb1d-\ufdff\ufe70-\ufefc]/u;
/** A cluster never ends before these (they attach to what precedes them) ... */
const ATTACHES = /^[\p{M}\u200c\u200d]/u;
/** ... nor after a virama / joiner (the next consonant forms a conjunct with it). */
const JOINS_NEXT = /[\u094d\u09cd\u0a4d\u0acd\u0b4d\u0bcd\u0c4d\u0ccd\u0d4d\u0dca\u0e3a\u1039\u103a\u17d2\u200d]$/u;

/**
 * Units for `text` (one run: one font, one bidi level, no line break) in logical order. A template
 * remembers the clusters (with its CIDs) of runs it drew before (UnicodeFont.resolvedRun); a new
 * run is shaped word by word, words from the library's cache when any template shaped them before.
 */
export function shapeRun(
  font: UnicodeFont,
  text: string,
  level: number,
  para: number,
  library: FontLibrary,
): LayoutUnit[] {
  const rtl = (level & 1) === 1;
  const clusters = font.resolvedRun(text, rtl, () => resolveRun(font, text, rtl, library));
  return clusters.map((c) => {
    const unit: LayoutUnit = { ch: c.ch, font, level, para, glyphs: c.glyphs, w: c.w };
    if (c.actualText !== undefined) unit.actualText = c.actualText;
    return unit;
  });
}

/**
 * Text that needs no shaping maps code points straight to glyphs (fontkit's full layout costs ~1 ms
 * per call on the CJK font, and viewers do not kern form fields either).
 */
function resolveRun(font: UnicodeFont, text: string, rtl: boolean, library: FontLibrary): ResolvedCluster[] {
  const simple = (ch: string): ResolvedCluster => {
    const g = library.glyphFor(font.parsed, ch.codePointAt(0)!);
    const hex = cidHex(font.cid(g.gid, ch));
    return { ch, glyphs: [{ hex, adv: g.w0, w0: g.w0, dx: 0, dy: 0 }], w: g.w0 / 1000 };
  };
  if (!rtl && !NEEDS_SHAPING.test(text)) return Array.from(text, simple);
  const out: ResolvedCluster[] = [];
  // Words are shaped one by one (spaces are simple units), so a line can break between them.
  for (const part of text.split(/( +)/)) {
    if (!part) continue;
    if (part[0] === ' ') {
      for (const ch of part) out.push(simple(ch));
      continue;
    }
    for (const piece of wordPieces(part))
      for (const c of library.shapedWord(font.parsed, piece, rtl, () => shapeWord(font.parsed.font, piece, rtl))) {
        const cluster: ResolvedCluster = {
          ch: c.ch,
          glyphs: c.glyphs.map((g) => ({
            hex: cidHex(font.cid(g.gid, g.text)),
            adv: g.adv,
            w0: g.w0,
            dx: g.dx,
            dy: g.dy,
          })),
          w: c.w,
        };
        if (c.actualText !== undefined) cluster.actualText = c.actualText;
        out.push(cluster);
      }
  }
  return out;
}

/**
 * Longest piece of a word given to fontkit at once (code points). Its layout costs the square of a
 * word's length when the word has many composable letter + mark pairs (each composition splices the
 * word's whole glyph array), so a 100,000-character word took seconds; no real word is this long,
 * and only kerning or a ligature exactly across a cut is lost.
 */
const MAX_PIECE = 256;

/** `word` cut into pieces of at most MAX_PIECE characters, before a character that starts a cluster. */
function wordPieces(word: string): string[] {
  if (word.length <= MAX_PIECE) return [word]; // UTF-16 length >= code points
  const chars = Array.from(word);
  if (chars.length <= MAX_PIECE) return [word];
  const pieces: string[] = [];
  let start = 0;
  while (chars.length - start > MAX_PIECE) {
    const inCluster = (at: number) => ATTACHES.test(chars[at]) || JOINS_NEXT.test(chars[at - 1]);
    let cut = start + MAX_PIECE;
    // back to a cluster boundary (a mark run is at most 30 long after stream-safe.ts), if one is near
    while (cut > start + MAX_PIECE / 2 && inCluster(cut)) cut--;
    if (inCluster(cut)) cut = start + MAX_PIECE;
    pieces.push(chars.slice(start, cut).join(''));
    start = cut;
  }
  pieces.push(chars.slice(start).join(''));
  return pieces;
}

/**
 * Glyphs after which a cluster that never balances is cut: a base with Unicode's stream-safe 30 marks
 * (stream-safe.ts), and room for a conjunct, stays whole.
 */
const MAX_CLUSTER_GLYPHS = 64;

/** fontkit's layout of one word, cut into clusters in logical order (no document involved). */
function shapeWord(kit: KitFont, word: string, rtl: boolean): ShapedCluster[] {
  const run = kit.layout(word, undefined, undefined, undefined, rtl ? 'rtl' : 'ltr');
  const glyphs = run.glyphs.slice();
  const positions = (
    run.positions ?? glyphs.map((g) => ({ xAdvance: g.advanceWidth, yAdvance: 0, xOffset: 0, yOffset: 0 }))
  ).slice();
  if (rtl) {
    // fontkit returns right-to-left runs in visual order; clusters are found in logical order.
    glyphs.reverse();
    positions.reverse();
  }
  const scale = 1000 / kit.unitsPerEm;
  const chars = Array.from(word);
  const cps = chars.map((c) => c.codePointAt(0)!);
  // never String.fromCodePoint(...many): a spread of 100,000 arguments overflows the stack
  const text = (points: number[]) => points.map((cp) => String.fromCodePoint(cp)).join('');
  const units: ShapedCluster[] = [];
  // A cluster ends where the glyphs so far stand for exactly the characters so far (as a multiset:
  // reordering inside a cluster is allowed) and the next character starts a new one.
  const balance = new Map<number, number>();
  let unbalanced = 0;
  const bump = (cp: number, d: number) => {
    const v = (balance.get(cp) ?? 0) + d;
    if (v === 0) {
      balance.delete(cp);
      unbalanced--;
    } else {
      if (!balance.has(cp)) unbalanced++;
      balance.set(cp, v);
    }
  };
  let consumed = 0; // characters of `word` covered by the glyphs so far
  let startChar = 0;
  let current: ShapedGlyph[] = [];
  let shown: number[] = []; // the characters of `current`'s glyphs, in glyph order
  const flush = (end: number) => {
    if (!current.length) return;
    const ch = chars.slice(startChar, end).join('');
    const unit: ShapedCluster = { ch, glyphs: current, w: current.reduce((w, g) => w + g.adv, 0) / 1000 };
    if (!rtl && text(shown) !== ch) unit.actualText = ch;
    units.push(unit);
    current = [];
    shown = [];
    startChar = end;
  };
  for (let i = 0; i < glyphs.length; i++) {
    const g = glyphs[i];
    const p = positions[i];
    const shows = g.codePoints ?? [];
    current.push({
      gid: g.id,
      text: shows.length ? text(shows) : '',
      adv: p.xAdvance * scale,
      w0: Math.round(g.advanceWidth * scale),
      dx: p.xOffset * scale,
      dy: p.yOffset * scale,
    });
    for (const cp of shows) {
      shown.push(cp);
      bump(cp, 1);
      if (consumed < cps.length) bump(cps[consumed++], -1);
    }
    const next = glyphs[i + 1];
    if (!next?.codePoints?.length || consumed >= cps.length) continue;
    // A glyph standing for other characters than those written (the shaper composed e + U+0301 into
    // é) leaves the count unbalanced for good: past MAX_CLUSTER_GLYPHS the cluster ends anyway, so it
    // cannot grow to the whole word (a unit no line can break, and one that overflowed the stack).
    if (unbalanced !== 0 && current.length < MAX_CLUSTER_GLYPHS) continue;
    if (ATTACHES.test(chars[consumed]) || JOINS_NEXT.test(chars[consumed - 1])) continue;
    flush(consumed);
  }
  flush(cps.length);
  return units;
}

/** Width at 1 pt of units: the sum of their advances (Tj and TJ draw each glyph at its advance). */
export function unitsWidth(units: LayoutUnit[]): number {
  let w = 0;
  for (const u of units) w += u.w ?? 0;
  return w;
}

/**
 * Text-showing operators for one line (units in logical order) from the current text position:
 * standard faces with Tj as before; Unicode fonts with TJ arrays of CIDs, moved by the shaper's
 * offsets and advances (TJ adjustments) and raised or lowered with Ts for vertical mark offsets.
 */
export function showUnits(line: LayoutUnit[], size: number, nameOf: (font: DrawFont) => string): string {
  const units = visualOrder(line);
  const ops: string[] = [];
  let start = 0;
  for (let i = 1; i <= units.length; i++) {
    if (i === units.length || units[i].font !== units[start].font) {
      const font = units[start].font;
      if (font instanceof PDFFont) {
        let hex = '';
        for (let k = start; k < i; k++) hex += units[k].hex ?? font.encodeText(units[k].ch).asString();
        ops.push(`/${nameOf(font)} ${num(size)} Tf <${hex}> Tj`);
      } else {
        ops.push(`/${nameOf(font)} ${num(size)} Tf ${cidOps(units.slice(start, i), size)}`);
      }
      start = i;
    }
  }
  return ops.join(' ');
}

function cidOps(units: LayoutUnit[], size: number): string {
  const ops: string[] = [];
  let items: string[] = [];
  let cids = ''; // hex digits of the CIDs since the last adjustment
  let pending = 0;
  let rise = 0;
  const flushCids = () => {
    if (cids) items.push(`<${cids}>`);
    cids = '';
  };
  const move = (d: number) => {
    pending += d;
  };
  const flushArray = () => {
    flushCids();
    if (items.length) ops.push(`[${items.join(' ')}] TJ`);
    items = [];
  };
  for (const u of units) {
    const glyphs = u.glyphs ?? [];
    if (u.actualText) {
      flushArray();
      ops.push(`/Span << /ActualText <FEFF${utf16Hex(u.actualText)}> >> BDC`);
    }
    const visual = u.level & 1 ? glyphs.slice().reverse() : glyphs;
    for (const g of visual) {
      move(g.dx);
      if (Math.abs(pending) > 0.01) {
        flushCids();
        items.push(num(-pending));
      }
      pending = 0;
      const r = (g.dy / 1000) * size;
      if (Math.abs(r - rise) > 0.001) {
        flushArray();
        ops.push(`${num(r)} Ts`);
        rise = r;
      }
      cids += g.hex;
      move(g.adv - g.dx - g.w0);
    }
    if (u.actualText) {
      flushArray();
      ops.push('EMC');
    }
  }
  flushArray();
  if (rise !== 0) ops.push('0 Ts');
  // A pending move after the last glyph matters only for what follows in the same line.
  if (Math.abs(pending) > 0.01) ops.push(`[${num(-pending)}] TJ`);
  return ops.join(' ');
}
