// Marks printed as text that show where to write: runs of underscores ("Name: ________"), box
// characters (☐ oui ☐ non) and date placeholders (__/__/____, JJ/MM/AAAA, TT.MM.JJJJ, MM/DD/YYYY).
// Positions come from pdf.js's text items; a character's place is its share of the item's width.
import type { Rect } from '../types.js';

/** A pdf.js text item, as getTextContent gives it. */
export interface RawTextItem {
  str: string;
  transform: number[];
  width: number;
}

export interface TextMark {
  kind: 'blank' | 'box' | 'date';
  /** user space; for a blank, its bottom is the writing line */
  rect: Rect;
  /** date: the pattern as the field should show it (dd/mm/yyyy) */
  dateFormat?: string;
}

/**
 * Box characters: Unicode's ballot boxes and squares, and the boxes of the Wingdings font as symbol
 * fonts without a Unicode map report them (U+F000 + the font's code: o-r are the shadowed squares, ¨ the plain one).
 */
const BOX = /[\u2610\u2612\u25a1\u25a2\u25fb\u25fd\u274f-\u2752\uf06f-\uf072\uf0a8]/gu;
const BLANK = /_{4,}/g;
/** day, month and year parts: blanks, dots or the letters of the pattern in English, French, German, Spanish */
const DATE =
  /(?<![\p{L}\d])((?:[_.]{2}|[JjDdTt]{2}|[Mm]{2})\s?([/.-])\s?(?:[_.]{2}|[MmDdJj]{2})\s?[/.-]\s?(?:[_.]{4}|[AaYyJj]{4}|[_.]{2}|[AaYyJj]{2}))(?![\p{L}\d])/gu;

/** The display pattern a placeholder stands for ("JJ/MM/AAAA" -> "dd/mm/yyyy", "MM/DD/YYYY" -> "mm/dd/yyyy"). */
function dateFormatOf(placeholder: string, sep: string): string {
  const monthFirst = /^\s*m/i.test(placeholder);
  const longYear = /[_.aAyYjJ]{4}\s*$/.test(placeholder);
  const y = longYear ? 'yyyy' : 'yy';
  return monthFirst ? `mm${sep}dd${sep}${y}` : `dd${sep}mm${sep}${y}`;
}

/** Items turned or skewed are left out: these marks are read on upright text only. */
const upright = (t: number[]) => Math.abs(t[1]) < 1e-3 && Math.abs(t[2]) < 1e-3 && t[0] > 0 && t[3] > 0;

export function findTextMarks(items: RawTextItem[], maxMarks: number): TextMark[] {
  const out: TextMark[] = [];
  for (const it of items) {
    if (out.length >= maxMarks) break;
    if (!upright(it.transform) || !Number.isFinite(it.width) || it.width <= 0) continue;
    const chars = Array.from(it.str);
    if (chars.length === 0) continue;
    const [, , , size, x, y] = it.transform;
    const step = it.width / chars.length;
    // character offsets (code units) to character indexes
    const index = (cu: number) => Array.from(it.str.slice(0, cu)).length;
    const span = (start: number, len: number): [number, number] => [
      x + index(start) * step,
      x + index(start + len) * step,
    ];
    const dates: [number, number][] = [];
    for (const m of it.str.matchAll(DATE)) {
      const [x0, x1] = span(m.index, m[1].length);
      dates.push([x0, x1]);
      out.push({
        kind: 'date',
        rect: [x0, y - 0.25 * size, x1, y + 0.85 * size],
        dateFormat: dateFormatOf(m[1], m[2]),
      });
    }
    for (const m of it.str.matchAll(BLANK)) {
      const [x0, x1] = span(m.index, m[0].length);
      if (dates.some(([a, b]) => x0 < b && x1 > a)) continue;
      out.push({ kind: 'blank', rect: [x0, y - 0.1 * size, x1, y + 0.9 * size] });
    }
    for (const m of it.str.matchAll(BOX)) {
      const [x0, x1] = span(m.index, m[0].length);
      // a check box drawn over the character covers it with a margin: about an em, centred on the glyph
      const side = Math.max(x1 - x0, 0.95 * size);
      const [cx, cy] = [(x0 + x1) / 2, y + 0.42 * size];
      out.push({ kind: 'box', rect: [cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2] });
    }
  }
  return out;
}

/**
 * The items with their runs of underscores cut out, each remaining piece placed by its share of the
 * characters: "Name: ________" is a caption and a line, and the caption finder must see only the caption.
 */
export function withoutBlanks(items: RawTextItem[]): RawTextItem[] {
  const out: RawTextItem[] = [];
  for (const it of items) {
    if (!/_{4,}/.test(it.str) || !upright(it.transform)) {
      out.push(it);
      continue;
    }
    const chars = Array.from(it.str);
    const step = it.width / chars.length;
    let i = 0;
    for (const piece of it.str.split(/(_{4,})/)) {
      const n = Array.from(piece).length;
      if (!piece.startsWith('____') && piece.trim()) {
        const t = [...it.transform];
        t[4] += i * step;
        out.push({ str: piece, transform: t, width: n * step });
      }
      i += n;
    }
  }
  return out;
}
