// Text fitting rules shared by the variable-text layout (appearance-text.ts): how far text may
// shrink, where it is cut, which values are never cut, and the warnings that say so. Generic over
// the glyph representation: callers pass their own width and space tests.
import type { AnalysedField } from '../types.js';

/** Smallest size auto-sized text shrinks to (pt); below it text is cut, with a warning. */
export const MIN_READABLE_SIZE = 6;

/** How one widget's text was fitted. */
export interface TextFit {
  /** characters or lines were left out */
  cut: boolean;
  /** drawn at this size (pt), below MIN_READABLE_SIZE (a number kept whole, a small box or /DA size) */
  shrunkTo?: number;
  /** text cut: characters shown / characters in the value (single line, comb) */
  chars?: { shown: number; total: number };
  /** multiline cut: lines shown / lines after wrapping */
  lines?: { shown: number; total: number };
}

const WHOLE_FORMATS = new Set(['number', 'percent', 'date', 'time', 'special', 'specialEx']);
/** Digits with separators, signs, currency symbols, percent, parentheses: "1,234.50", "($5)", "12/31/2024", "123-45-6789". */
const NUMERIC_SHAPE = /^[\p{Sc}\p{Nd}\s.,'’/:\-+−()%]+$/u;

/**
 * A value that must be drawn whole (shrunk, never cut): the field is a number or date, its format
 * action is a number, percent, date, time or special format, or the text looks like a number or
 * date (digits and separators only).
 */
export function mustStayWhole(info: AnalysedField | undefined, text: string): boolean {
  if (text.trim() === '' || text.includes('\n') || text.length > 64) return false;
  if (info && (info.type === 'number' || info.type === 'date')) return true;
  if (info?.detail.format && WHOLE_FORMATS.has(info.detail.format.kind)) return true;
  return /\p{Nd}/u.test(text) && NUMERIC_SHAPE.test(text.trim());
}

/**
 * Single line: the size to draw at and whether the text must be cut.
 * `natural` is the text width at 1 pt, `innerW` the room for it, `heightSize` the largest size the
 * box height allows (auto size), `fixed` the /DA size (0: auto).
 */
export function fitLineSize(
  natural: number,
  innerW: number,
  heightSize: number,
  fixed: number,
  whole: boolean,
): { size: number; cut: boolean } {
  const start = fixed || heightSize;
  if (natural * start <= innerW + 0.01) return { size: start, cut: false };
  const fits = innerW / natural;
  // Numbers and dates shrink as far as they must, below the readable size too (the caller warns).
  if (whole) return { size: fits, cut: false };
  if (fixed) return { size: fixed, cut: true };
  const floor = Math.min(start, MIN_READABLE_SIZE);
  return fits >= floor ? { size: fits, cut: false } : { size: floor, cut: true };
}

/**
 * The longest prefix of `items` no wider than `maxWidth` (at 1 pt), cut after the last whole word
 * when the prefix holds one, else between characters. Trailing spaces are dropped.
 */
export function cutToWidth<T>(
  items: T[],
  maxWidth: number,
  widthOf: (items: T[]) => number,
  isSpace: (item: T) => boolean,
): T[] {
  // Binary search for the longest prefix that fits (widths only grow with the prefix).
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (widthOf(items.slice(0, mid)) <= maxWidth + 0.001) lo = mid;
    else hi = mid - 1;
  }
  let end = lo;
  if (end < items.length && !isSpace(items[end])) {
    // The cut falls inside a word: end at the last space before it, if there is one.
    let space = end - 1;
    while (space > 0 && !isSpace(items[space])) space--;
    if (space > 0) end = space;
  }
  while (end > 0 && isSpace(items[end - 1])) end--;
  return items.slice(0, end);
}

/** The warning for a field whose text was cut or shrunk, or undefined when it fitted. */
export function fitWarning(label: string, fits: TextFit[]): string | undefined {
  const cut = fits.find((f) => f.cut);
  if (cut) {
    const detail = cut.lines
      ? ` (${cut.lines.shown} of ${cut.lines.total} lines shown)`
      : cut.chars
        ? ` (${cut.chars.shown} of ${cut.chars.total} characters shown)`
        : '';
    return `field "${label}": the text does not fit the field and is cut off${detail}`;
  }
  const sizes = fits.map((f) => f.shrunkTo).filter((s): s is number => s !== undefined);
  if (sizes.length) {
    const size = Math.floor(Math.min(...sizes) * 10) / 10;
    return `field "${label}": the value is drawn at ${size} pt, below the readable ${MIN_READABLE_SIZE} pt, as the field is too small for it`;
  }
  return undefined;
}
