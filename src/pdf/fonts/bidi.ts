// The Unicode bidirectional algorithm (UAX #9) for field values, through bidi-js: levels are
// resolved on the whole logical value (each paragraph gets its own base direction from its first
// strong character, rule P2/P3), lines are broken in logical order, and each line is then put in
// visual order (rule L2) unit by unit. A unit is a shaping cluster, so a ligature or conjunct moves
// as a whole.
import bidiModule, { type Bidi } from 'bidi-js';

// bidi-js is a UMD (CommonJS) bundle whose typings say `export default`: under NodeNext the types
// see the namespace, while Node hands us module.exports, the factory itself.
const factory = ((bidiModule as unknown as { default?: () => Bidi }).default ?? bidiModule) as unknown as () => Bidi;
const bidi = factory();

export interface BidiInfo {
  /** level of each UTF-16 code unit */
  levels: Uint8Array;
  /** paragraph base level (0 LTR, 1 RTL) of each UTF-16 code unit */
  paragraphLevel(index: number): number;
}

/** True when the text has a right-to-left character (Hebrew, Arabic, Syriac, Thaana, N'Ko, ...). */
const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

function hasRtl(text: string): boolean {
  return RTL_CHAR.test(text);
}

export function resolveLevels(text: string): BidiInfo | undefined {
  if (!hasRtl(text)) return undefined; // everything at level 0: nothing to reorder
  const { levels, paragraphs } = bidi.getEmbeddingLevels(text, 'auto');
  return {
    levels,
    paragraphLevel(index: number) {
      for (const p of paragraphs) if (index >= p.start && index <= p.end) return p.level;
      return 0;
    },
  };
}

/** The mirrored form of a bracket-like character drawn right-to-left ("(" -> ")"), else itself. */
export function mirrored(ch: string): string {
  return bidi.getMirroredCharacter(ch) ?? ch;
}

/**
 * Rule L2 on one line of units in logical order: from the highest level down to the lowest odd
 * level, every maximal run at that level or higher is reversed. Trailing spaces take the paragraph
 * level (rule L1), so they stay at the line's end.
 */
export function visualOrder<T extends { level: number; para: number; ch: string }>(line: T[]): T[] {
  let max = 0;
  let minOdd = 255;
  for (const u of line) {
    if (u.level > max) max = u.level;
    if (u.level & 1 && u.level < minOdd) minOdd = u.level;
  }
  if (max === 0) return line;
  const levels = line.map((u) => u.level);
  for (let i = line.length - 1; i >= 0 && /^\s+$/.test(line[i].ch); i--) levels[i] = line[i].para;
  const idx = line.map((_, i) => i);
  for (let lv = max; lv >= minOdd; lv--) {
    let i = 0;
    while (i < idx.length) {
      if (levels[idx[i]] < lv) {
        i++;
        continue;
      }
      let j = i;
      while (j < idx.length && levels[idx[j]] >= lv) j++;
      const run = idx.slice(i, j).reverse();
      idx.splice(i, j - i, ...run);
      i = j;
    }
  }
  return idx.map((i) => line[i]);
}
