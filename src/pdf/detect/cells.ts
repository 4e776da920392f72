// Lines joined and boxes found: collinear pieces of one line become one line (a rule drawn in dashes
// or cell by cell), and the closed boxes between two horizontal and two vertical lines become cells
// (table cells, boxes to write in, check box squares). Pure geometry over PageInk's lines.
import type { Rect } from '../types.js';
import type { Segment } from './ink.js';

/** Points of slack when lines meet: producers round, strokes have width. */
export const TOUCH = 1.2;

/** Collinear pieces that touch or overlap, joined. `horizontal` says which axis the lines run along. */
export function joinLines(lines: Segment[], horizontal: boolean): Segment[] {
  const at = (s: Segment) => (horizontal ? s.y0 : s.x0);
  const from = (s: Segment) => (horizontal ? s.x0 : s.y0);
  const to = (s: Segment) => (horizontal ? s.x1 : s.y1);
  const sorted = [...lines].sort((a, b) => at(a) - at(b) || from(a) - from(b));
  // rows of lines at (nearly) the same height, each row swept along its axis
  const out: Segment[] = [];
  let i = 0;
  while (i < sorted.length) {
    let k = i;
    while (k + 1 < sorted.length && at(sorted[k + 1]) - at(sorted[i]) <= 0.8) k++;
    const row = sorted.slice(i, k + 1).sort((a, b) => from(a) - from(b));
    const pos = row.reduce((s, l) => s + at(l), 0) / row.length;
    let start = from(row[0]);
    let end = to(row[0]);
    const flush = () =>
      out.push(horizontal ? { x0: start, y0: pos, x1: end, y1: pos } : { x0: pos, y0: start, x1: pos, y1: end });
    for (const l of row.slice(1)) {
      if (from(l) <= end + TOUCH) end = Math.max(end, to(l));
      else {
        flush();
        start = from(l);
        end = to(l);
      }
    }
    flush();
    i = k + 1;
  }
  return out;
}

/**
 * Every smallest closed box: for each horizontal line as a bottom, the vertical lines rising from it,
 * and between two neighbours the lowest horizontal line that spans both. `maxCells` bounds the answer.
 */
export function findCells(horizontal: Segment[], vertical: Segment[], maxCells: number): Rect[] {
  const byY = [...horizontal].sort((a, b) => a.y0 - b.y0);
  const byX = [...vertical].sort((a, b) => a.x0 - b.x0);
  const ys = byY.map((h) => h.y0);
  const cells: Rect[] = [];
  const seen = new Set<string>();
  for (let bi = 0; bi < byY.length && cells.length < maxCells; bi++) {
    const bottom = byY[bi];
    const y = bottom.y0;
    const rising: number[] = [];
    for (let vi = firstAt(byX, bottom.x0 - TOUCH); vi < byX.length; vi++) {
      const v = byX[vi];
      if (v.x0 > bottom.x1 + TOUCH) break;
      if (v.y0 <= y + TOUCH && v.y1 > y + 2) rising.push(v.x0);
    }
    // a row of a table may leave its outer sides open (tax forms do): where lines rise from this bottom,
    // its ends close the row's first and last cells as far up as those lines reach
    const topAt = new Map(rising.map((x) => [x, topOf(byX, x, y)]));
    const heights = [...topAt.values()].sort((a, b) => a - b);
    const open = rising.length > 0 ? heights[heights.length - 1] : y;
    const ends = rising.length > 0 ? [bottom.x0, bottom.x1] : [];
    const all = [...rising, ...ends].sort((a, b) => a - b);
    const xs = all.filter((x, i) => i === 0 || x - all[i - 1] > TOUCH);
    const reachOf = (x: number) => Math.max(topOf(byX, x, y), ends.some((e) => Math.abs(e - x) <= TOUCH) ? open : y);
    for (let i = 0; i + 1 < xs.length; i++) {
      const [xa, xb] = [xs[i], xs[i + 1]];
      if (xb - xa < 3) continue;
      const reach = Math.min(reachOf(xa), reachOf(xb));
      let top: number | undefined;
      for (let ti = bi + 1; ti < byY.length; ti++) {
        const t = byY[ti];
        if (t.y0 <= y + 2) continue;
        if (t.y0 > reach + TOUCH) break;
        if (t.x0 <= xa + TOUCH && t.x1 >= xb - TOUCH) {
          top = t.y0;
          break;
        }
      }
      // a row of boxes open on top (a tax form's inner amount column: "| 8b | dollars | cents"): three
      // or more lines rising from one bottom to one height close their boxes at that height
      const [ta, tb] = [topAt.get(xa), topAt.get(xb)];
      if (top === undefined && ta !== undefined && tb !== undefined && openTop(ta, tb, y, heights, { byY, ys }, xa, xb))
        top = Math.min(ta, tb);
      if (top === undefined) continue;
      const key = `${Math.round(xa)}:${Math.round(y)}:${Math.round(xb)}:${Math.round(top)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      cells.push([xa, y, xb, top]);
    }
  }
  return cells;
}

/** Heights (points) of the boxes of a row open on top. */
const OPEN_MIN = 10;
const OPEN_MAX = 30;

/**
 * Whether the lines rising at xa and xb (reaching ta and tb) are two of a row of three or more that
 * stop at one height (within TOUCH, `heights` sorted) between OPEN_MIN and OPEN_MAX above y, with no
 * line meeting either top: the sides of boxes left open on top. (The gap between two closed boxes is
 * not one; the ticks of a tick comb are shorter than a line of handwriting.)
 */
function openTop(
  ta: number,
  tb: number,
  y: number,
  heights: number[],
  lines: { byY: Segment[]; ys: number[] },
  xa: number,
  xb: number,
): boolean {
  const { byY, ys } = lines;
  if (Math.abs(ta - tb) > TOUCH || ta - y < OPEN_MIN || ta - y > OPEN_MAX) return false;
  if (lowerBound(heights, ta + TOUCH + 1e-9) - lowerBound(heights, ta - TOUCH) < 3) return false;
  const met = (x: number, t: number) => {
    for (let i = lowerBound(ys, t - TOUCH); i < byY.length && byY[i].y0 <= t + TOUCH; i++)
      if (byY[i].x0 <= x + TOUCH && byY[i].x1 >= x - TOUCH) return true;
    return false;
  };
  return !met(xa, ta) && !met(xb, tb);
}

/** Index of the first value at or above v in an ascending list. */
function lowerBound(sorted: number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How high the vertical line at x, rising from y, reaches (the highest one there). */
function topOf(byX: Segment[], x: number, y: number): number {
  let top = y;
  for (let i = firstAt(byX, x - TOUCH); i < byX.length; i++) {
    const v = byX[i];
    if (v.x0 > x + TOUCH) break;
    if (v.y0 <= y + TOUCH) top = Math.max(top, v.y1);
  }
  return top;
}

/** Index of the first line (sorted by x0) at or right of x. */
function firstAt(byX: Segment[], x: number): number {
  let lo = 0;
  let hi = byX.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byX[mid].x0 < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
