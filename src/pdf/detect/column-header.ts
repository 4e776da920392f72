// The header of a table column a detected cell sits in: the lines of text stacked over the cell, inside
// its width, read top to bottom. A cell's caption finder reads one line above (often only the column's
// number, "(1)", or the header's last line, which several columns share); a person names the cell by
// the whole header ("Taxable Payroll (as defined in State Act)").
import type { LabelPage } from '../analysis/page-labels.js';
import { toFrame } from '../analysis/page-text.js';
import type { Phrase } from '../analysis/text-phrases.js';
import type { Rect } from '../types.js';

/** Header lines read at most (a header is a few lines; more is a paragraph). */
const MAX_HEADER_LINES = 6;

/** A column's number or letter under its header: "(1)", "(4)", "a". */
const COLUMN_MARK = /^\(?[0-9a-z]{1,2}\)?$/iu;

/** The column header over `rect`, '' when there is none with a letter in it. */
export function columnHeader(page: LabelPage, rect: Rect): string {
  const r = toFrame(rect, page.rotation);
  const cellMid = (r[0] + r[2]) / 2;
  // a line inside the cell's width, or one spanning it (the header of a group of columns: "Period")
  const inColumn = (p: Phrase) => {
    const mid = (p.x0 + p.x1) / 2;
    const inside = mid > r[0] && mid < r[2] && p.x0 >= r[0] - p.size && p.x1 <= r[2] + p.size;
    return inside || (p.x0 <= cellMid && p.x1 >= cellMid && p.x1 - p.x0 < 3 * (r[2] - r[0]));
  };
  const over = page.phrases.filter((p) => inColumn(p) && p.bottom >= r[3] - 0.4 * p.size).sort((a, b) => a.y - b.y);
  const lines: Phrase[] = [];
  let edge = r[3];
  for (const p of over) {
    // a header centred in a tall header row may stand a few lines above the cell; its lines are
    // close together, and it ends where a gap of more than a line and a half opens above it
    // (the column's number under the header is no part of it: the gap above it counts as the first)
    const first = lines.every((l) => COLUMN_MARK.test(l.text.trim()));
    if (p.bottom - edge > (first ? 4 : 1.5) * p.size + 2) break;
    lines.push(p);
    edge = Math.max(edge, p.top);
    if (lines.length >= MAX_HEADER_LINES) break;
  }
  const words = lines
    .sort((a, b) => b.y - a.y || a.x0 - b.x0)
    .map((p) => p.text.trim())
    .filter((t) => !COLUMN_MARK.test(t));
  const text = words.join(' ').replace(/\s+/g, ' ').trim();
  return /\p{L}/u.test(text) ? text : '';
}
