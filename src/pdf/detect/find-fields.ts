// Where a page asks to be written on, from its lines and text alone: empty boxes and the empty part
// of boxes that hold a caption (text fields, multi-line areas when tall), rows of equal touching
// cells (combs), small squares, rings and box characters (buttons), lines and runs of underscores
// with room above them (text fields), date placeholders. Pure: geometry in, candidates out.
import type { Rect } from '../types.js';
import { findCells, joinLines, TOUCH } from './cells.js';
import type { PageInk, Segment } from './ink.js';
import type { TextMark } from './text-marks.js';

export type CandidateKind = 'text' | 'multiline' | 'comb' | 'date' | 'checkbox' | 'ring';

export interface Candidate {
  kind: CandidateKind;
  rect: Rect;
  /** comb: the number of cells */
  cells?: number;
  /** date: the display pattern */
  dateFormat?: string;
  /** a writing line (drawn or typed as underscores), not a box: its caption may be printed under it */
  line?: boolean;
  /** 0-1: how sure the shape alone makes us */
  confidence: number;
}

/** A piece of text in user space: the glyph box of a phrase. */
export interface TextBox {
  text: string;
  rect: Rect;
}

export interface FindLimits {
  /** closed boxes looked at per page */
  maxCells: number;
  /** candidates kept per page */
  maxCandidates: number;
}

const width = (r: Rect) => r[2] - r[0];
const height = (r: Rect) => r[3] - r[1];
const area = (r: Rect) => Math.max(0, width(r)) * Math.max(0, height(r));
const overlapX = (a: Rect, b: Rect) => Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
const overlapY = (a: Rect, b: Rect) => Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
const intersection = (a: Rect, b: Rect) => Math.max(0, overlapX(a, b)) * Math.max(0, overlapY(a, b));
const inside = (inner: Rect, outer: Rect, slack = TOUCH) =>
  inner[0] >= outer[0] - slack &&
  inner[1] >= outer[1] - slack &&
  inner[2] <= outer[2] + slack &&
  inner[3] <= outer[3] + slack;

/** Button squares: this many points a side. */
const BUTTON_MIN = 5;
const BUTTON_MAX = 22;
/** Shortest line or box a text field is made from (points). */
const MIN_FIELD_WIDTH = 24;
/** Shortest writing line: it takes a count or a short number ("Boxes checked on 6a and 6b ____"). */
const MIN_LINE_WIDTH = 18;
const MIN_FIELD_HEIGHT = 8;
/** A closed box (not a square) this narrow still takes a few characters. */
const MIN_BOX_WIDTH = 12;
/** A text field drawn on a line gets this height above it, less where a line or text comes sooner (points). */
const LINE_FIELD_HEIGHT = 16;
/** Free height from which a box is a multi-line area (points: about three lines of 10 pt text). */
const MULTILINE_HEIGHT = 40;

const isSquare = (r: Rect) =>
  width(r) >= BUTTON_MIN &&
  width(r) <= BUTTON_MAX &&
  height(r) >= BUTTON_MIN &&
  height(r) <= BUTTON_MAX &&
  Math.abs(width(r) - height(r)) <= 0.25 * Math.max(width(r), height(r));

/**
 * Rows of touching cells of one height and nearly one width, each no wider than tall x 1.6: three or
 * more, or two empty ones (two touching squares are two digits, not two check boxes).
 */
function combRows(cells: Rect[], blank: (r: Rect) => boolean): { rect: Rect; cells: number; members: Rect[] }[] {
  const narrow = cells
    .filter((c) => height(c) >= 6 && height(c) <= 40 && width(c) <= 1.6 * height(c) && width(c) >= 4)
    .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const used = new Set<Rect>();
  const out: { rect: Rect; cells: number; members: Rect[] }[] = [];
  for (const start of narrow) {
    if (used.has(start)) continue;
    const row = [start];
    for (;;) {
      const last = row[row.length - 1];
      const next = narrow.find(
        (c) =>
          !used.has(c) &&
          !row.includes(c) &&
          Math.abs(c[1] - last[1]) <= TOUCH &&
          Math.abs(c[3] - last[3]) <= TOUCH &&
          Math.abs(c[0] - last[2]) <= TOUCH &&
          Math.abs(width(c) - width(start)) <= 0.25 * width(start),
      );
      if (!next) break;
      row.push(next);
    }
    // two cells make a comb only when both are empty (a month, a state's code); more make one always
    if (row.length < 2 || (row.length === 2 && !(blank(row[0]) && blank(row[1])))) continue;
    for (const c of row) used.add(c);
    out.push({ rect: [row[0][0], row[0][1], row[row.length - 1][2], row[0][3]], cells: row.length, members: row });
  }
  return out;
}

/** Text that separates the parts of a date or number written box by box: "/", ".", "-", a decimal comma. */
const SEPARATOR = /^[/.,\-–:]$/u;

/**
 * Boxes written one part each ("[  ] / [  ] / [    ]"): small boxes on one line with a separator printed
 * between each and the next. They are text fields, even when square.
 */
function dateParts(boxes: Rect[], texts: TextBox[]): Set<Rect> {
  const small = boxes
    .filter((b) => height(b) >= 7 && height(b) <= 26 && width(b) >= 5 && width(b) <= 80)
    .sort((a, b) => a[0] - b[0]);
  const seps = texts.filter((t) => SEPARATOR.test(t.text.trim()));
  const out = new Set<Rect>();
  for (const a of small) {
    const b = small.find(
      (o) =>
        o !== a &&
        o[0] >= a[2] - TOUCH &&
        o[0] - a[2] <= 16 &&
        Math.abs(o[1] - a[1]) <= 2 &&
        Math.abs(o[3] - a[3]) <= 2 &&
        seps.some((t) => t.rect[0] >= a[2] - 1 && t.rect[2] <= o[0] + 1 && overlapY(t.rect, a) > 0),
    );
    if (b) {
      out.add(a);
      out.add(b);
    }
  }
  return out;
}

/** The part of a box left to write in once its caption is out of the way, or undefined when none is. */
function freePart(cell: Rect, texts: TextBox[]): Rect | undefined {
  const held = texts.filter((t) => intersection(t.rect, cell) > 0.5 * area(t.rect));
  if (held.length === 0) return [cell[0], cell[1], cell[2], cell[3]];
  // caption on top: the room under it
  const lowest = Math.min(...held.map((t) => t.rect[1]));
  if (lowest - cell[1] >= 11) return [cell[0], cell[1], cell[2], lowest - 1];
  // caption on the left: the room right of it
  const right = Math.max(...held.map((t) => t.rect[2]));
  if (cell[2] - right >= Math.max(40, 0.35 * width(cell))) return [right + 2, cell[1], cell[2], cell[3]];
  return undefined;
}

/** The widest stretch of [x0, x1] that no text covers at the height of `band`. */
function widestFree(x0: number, x1: number, band: Rect, texts: TextBox[]): [number, number] | undefined {
  const blocks = texts
    .filter((t) => overlapY(t.rect, band) > 0.4 * height(t.rect) && t.rect[2] > x0 && t.rect[0] < x1)
    .map((t) => [t.rect[0] - 2, t.rect[2] + 2] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  let best: [number, number] | undefined;
  let cur = x0;
  for (const [a, b] of [...blocks, [x1, x1] as [number, number]]) {
    if (a - cur > (best ? best[1] - best[0] : 0)) best = [cur, Math.min(a, x1)];
    cur = Math.max(cur, b);
  }
  return best && best[1] - best[0] >= MIN_LINE_WIDTH ? best : undefined;
}

/** Room above a writing line at y across [x0, x1]: up to the nearest line or text above, at most `max`. */
function roomAbove(y: number, x0: number, x1: number, lines: Segment[], texts: TextBox[], max: number): number {
  let room = max;
  for (const l of lines) {
    if (l.y0 > y + 1.5 && l.y0 - y < room && Math.min(l.x1, x1) - Math.max(l.x0, x0) > 0.3 * (x1 - x0)) room = l.y0 - y;
  }
  for (const t of texts) {
    if (t.rect[1] > y + 3 && t.rect[1] - y < room && Math.min(t.rect[2], x1) - Math.max(t.rect[0], x0) > 0)
      room = t.rect[1] - y;
  }
  return room;
}

/** Captions printed under a writing line are small: at most this high (points, glyph box). */
const CAPTION_BELOW_MAX = 9;

/**
 * Captions naming the parts of one answer written on one line: a date (Month Day Year, MM DD YYYY),
 * a person's name (First Middle Last) or a street address (Number Street): the line stays one field.
 */
const ONE_ANSWER_PART =
  /^(?:\(?(?:mm|dd|yy|yyyy|jj|aaaa|tt|month|day|year|mois|jour|année|monat|tag|jahr)\)?|(?:first|middle|last|given|family|sur)\s*name|(?:first|middle)\s*initial|m\.?i\.?|prénoms?|nom|vorname|nachname|number|street|no\.?|rue|straße|strasse|hausnummer|calle|número)$/iu;

/**
 * A writing line captioned underneath part by part ("City   State   ZIP Code") is one field per
 * caption: each part starts where its caption starts (the first at the line's start). A line with
 * one caption or none under it stays whole.
 */
function splitByCaptionsBelow(y: number, span: [number, number], texts: TextBox[]): [number, number][] {
  const under = texts
    .filter(
      (t) =>
        height(t.rect) <= CAPTION_BELOW_MAX &&
        t.rect[3] <= y + 1 &&
        y - t.rect[3] <= Math.max(4, 0.8 * height(t.rect)) &&
        t.rect[0] >= span[0] - 3 &&
        t.rect[0] < span[1] - 8 &&
        t.text.trim().split(/\s+/).length <= 4,
    )
    .sort((a, b) => a.rect[0] - b.rect[0]);
  // words a few points apart are one caption ("Creditor’s Name" read as two pieces); half an em apart
  // are two ("State  ZIP Code", which the phrases join)
  const captions: TextBox[] = [];
  for (const t of under) {
    const last = captions[captions.length - 1];
    if (last && t.rect[0] - last.rect[2] < Math.min(3, 0.5 * height(t.rect)))
      captions[captions.length - 1] = {
        text: `${last.text} ${t.text}`,
        rect: [last.rect[0], last.rect[1], t.rect[2], last.rect[3]],
      };
    else captions.push(t);
  }
  if (captions.length < 2 || captions.every((t) => ONE_ANSWER_PART.test(t.text.trim()))) return [span];
  const cuts = captions.slice(1).map((t) => t.rect[0] - 1);
  const edges = [span[0], ...cuts, span[1]];
  const parts: [number, number][] = [];
  for (let i = 0; i + 1 < edges.length; i++) if (edges[i + 1] - edges[i] >= 12) parts.push([edges[i], edges[i + 1]]);
  return parts.length > 0 ? parts : [span];
}

/** Fills darker than this are shading (headings, bars); paper-white tints lighter than it are not. */
const SHADED = 0.97;
/** Fills darker than this are bars printed with white text: nothing is written on them. */
const DARK = 0.5;

/**
 * The lightness under a box: the last fill drawn that covers most of it (1 when none does). Only fills
 * of some size are looked at (a page of tiny squares stays cheap).
 */
function shading(fills: PageInk['fills']): (r: Rect) => number {
  const big = fills.filter((f) => area(f.rect) >= 40);
  return (r) => {
    for (let i = big.length - 1; i >= 0; i--) if (intersection(big[i].rect, r) >= 0.8 * area(r)) return big[i].light;
    return 1;
  };
}

/** A fill this large may be the tinted ground of white boxes (points²); smaller ones are not looked at. */
const GROUND_AREA = 2000;

/**
 * Boxes drawn as white fills on a tinted ground (a coloured form's writing boxes have no border): each
 * white rectangle drawn over a larger fill darker than paper. Drawing order decides, as on the page.
 * Only large fills are grounds, so a page of many fills stays cheap.
 */
function whiteBoxes(fills: PageInk['fills']): Rect[] {
  const out: Rect[] = [];
  const grounds: { rect: Rect; light: number }[] = [];
  for (const f of fills) {
    if (f.light >= SHADED && width(f.rect) >= BUTTON_MIN && height(f.rect) >= BUTTON_MIN) {
      const under = grounds.findLast((g) => inside(f.rect, g.rect, 0));
      if (under && under.light < SHADED && area(f.rect) < 0.5 * area(under.rect)) out.push(f.rect);
    }
    if (area(f.rect) >= GROUND_AREA) grounds.push(f);
  }
  return out;
}

/**
 * The part of a box not level with a shaded, wordless cell right before it (or before the empty box
 * before it), narrower than the box it touches: tax forms shade a line's number cell where no amount
 * is asked, and leave the amount column's boxes running on through those rows. The largest part left, or undefined when the whole box is beside shading.
 */
function besideShade(
  c: Rect,
  fills: PageInk['fills'],
  boxes: Rect[],
  holdsText: (r: Rect) => boolean,
): Rect | undefined {
  // the box itself, or an empty box right before it (the dollars before the cents)
  const rows = [c, ...boxes.filter((o) => Math.abs(o[2] - c[0]) <= TOUCH && overlapY(o, c) > TOUCH && !holdsText(o))];
  const cuts = fills
    .filter(
      (f) =>
        f.light < SHADED &&
        overlapY(f.rect, c) > TOUCH &&
        rows.some((r) => Math.abs(f.rect[2] - r[0]) <= TOUCH && width(f.rect) <= 0.5 * width(r)) &&
        !holdsText(f.rect),
    )
    .map((f) => [Math.max(c[1], f.rect[1]), Math.min(c[3], f.rect[3])] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  if (cuts.length === 0) return c;
  let best: [number, number] | undefined;
  let y = c[1];
  for (const [a, b] of [...cuts, [c[3], c[3]] as [number, number]]) {
    if (a - y > TOUCH && (!best || a - y > best[1] - best[0])) best = [y, a];
    y = Math.max(y, b);
  }
  return best ? [c[0], best[0], c[2], best[1]] : undefined;
}

/** How many lines of text a box holds. */
function textLines(c: Rect, texts: TextBox[]): number {
  const tops = texts
    .filter((t) => intersection(t.rect, c) > 0.5 * area(t.rect))
    .map((t) => t.rect[3])
    .sort((a, b) => a - b);
  return tops.filter((y, i) => i === 0 || y - tops[i - 1] > 3).length;
}

/**
 * A row of a printed table (instructions, a chart): the box and every box beside it in its row hold
 * text. Where each cell of a row already says something, the room after the words is layout, not a
 * blank; a form's row leaves at least one box empty to write in.
 */
function printedRow(c: Rect, boxes: Rect[], holdsText: (r: Rect) => boolean): boolean {
  const row = boxes.filter(
    (o) => o !== c && Math.abs(o[1] - c[1]) <= TOUCH && Math.abs(o[3] - c[3]) <= TOUCH && overlapX(o, c) <= TOUCH,
  );
  return row.length > 0 && row.every(holdsText);
}

/** The boxes right above and right below `c` in its column (same edges, touching). */
function stacked(c: Rect, boxes: Rect[]): Rect[] {
  return boxes.filter(
    (o) =>
      o !== c &&
      Math.abs(o[0] - c[0]) <= TOUCH &&
      Math.abs(o[2] - c[2]) <= TOUCH &&
      (Math.abs(o[1] - c[3]) <= TOUCH || Math.abs(o[3] - c[1]) <= TOUCH),
  );
}

/** Another box of the row holds lines of words down to its bottom (a cell of a printed chart, not a caption). */
function rowFilled(c: Rect, boxes: Rect[], texts: TextBox[]): boolean {
  return boxes.some((o) => {
    if (o === c || Math.abs(o[1] - c[1]) > TOUCH || Math.abs(o[3] - c[3]) > TOUCH || overlapX(o, c) > TOUCH)
      return false;
    const held = texts.filter((t) => intersection(t.rect, o) > 0.5 * area(t.rect));
    if (held.length === 0 || textLines(o, texts) < 2) return false;
    // a check box in it makes it a form's cell ("3 ☐ Single ☐ Married" beside "Home address")
    if (boxes.some((b) => b !== o && isSquare(b) && inside(b, o))) return false;
    const low = held.reduce((a, t) => (t.rect[1] < a.rect[1] ? t : a));
    return low.rect[1] - o[1] <= 1.6 * height(low.rect);
  });
}

/**
 * A heading of a table whose blanks are its empty boxes: a row's name with an empty box right after it
 * in the row ("Alberta | [ ] | [ ]"), or a column's name over an empty box of the same width, in a row
 * of headings (every box of the row holds words). The room after or under such words is layout.
 */
function tableHeading(c: Rect, beside: boolean, boxes: Rect[], blank: (r: Rect) => boolean): boolean {
  const sameRow = (o: Rect) => Math.abs(o[1] - c[1]) <= TOUCH && Math.abs(o[3] - c[3]) <= TOUCH;
  if (beside) return boxes.some((o) => o !== c && sameRow(o) && Math.abs(o[0] - c[2]) <= TOUCH && blank(o));
  const below = boxes.some(
    (o) =>
      Math.abs(o[3] - c[1]) <= TOUCH && Math.abs(o[0] - c[0]) <= TOUCH && Math.abs(o[2] - c[2]) <= TOUCH && blank(o),
  );
  return below && printedRow(c, boxes, (o) => !blank(o));
}

/** The cells numbered start's number + 1, + 2, … each placed after the one before as `follows` says. */
function numberedRun<T extends { c: Rect; n: number }>(
  start: T,
  pool: readonly T[],
  follows: (c: Rect, last: Rect) => boolean,
): T[] {
  const run = [start];
  for (;;) {
    const last = run[run.length - 1];
    const next = pool.find((x) => x.n === last.n + 1 && follows(x.c, last.c));
    if (!next) return run;
    run.push(next);
  }
}

/**
 * A scale to mark: three or more boxes side by side in one row, each holding only a number, the
 * numbers counting up by one ("1 | 2 | 3 | 4 | 5"), or two to four small ones stacked, counting up
 * downwards, each before its option's words. Each box is a button (ticked or circled).
 */
function numberedChoices(cells: Rect[], texts: TextBox[]): Set<Rect> {
  const numberIn = (c: Rect): number | undefined => {
    const held = texts.filter((t) => intersection(t.rect, c) > 0.5 * area(t.rect));
    return held.length === 1 && /^\d{1,2}$/.test(held[0].text.trim()) ? Number(held[0].text.trim()) : undefined;
  };
  const numbered = cells
    .filter((c) => height(c) <= 40 && width(c) <= 120)
    .map((c) => ({ c, n: numberIn(c) }))
    .filter((x): x is { c: Rect; n: number } => x.n !== undefined)
    .sort((a, b) => a.c[1] - b.c[1] || a.c[0] - b.c[0]);
  const out = new Set<Rect>();
  for (const start of numbered) {
    if (out.has(start.c)) continue;
    // side by side: same top and bottom, each starting where the last ends
    const run = numberedRun(
      start,
      numbered,
      (c, last) =>
        Math.abs(c[1] - last[1]) <= TOUCH && Math.abs(c[3] - last[3]) <= TOUCH && Math.abs(c[0] - last[2]) <= TOUCH,
    );
    if (run.length >= 3) for (const x of run) out.add(x.c);
  }
  // a short list to tick, small boxes stacked and numbered down ("1 Pass" over "2 Fail"): two to four
  // do. A number with an empty box right after it is that box's line number (a tax form's column).
  const blankAfter = (c: Rect) =>
    cells.some(
      (o) =>
        Math.abs(o[0] - c[2]) <= TOUCH &&
        overlapY(o, c) > 0.5 * height(c) &&
        !texts.some((t) => intersection(t.rect, o) > 0.5 * area(t.rect)),
    );
  const small = numbered.filter((x) => height(x.c) <= 16 && width(x.c) <= 24 && !blankAfter(x.c));
  for (const top of small) {
    if (out.has(top.c)) continue;
    // stacked: same left and right, each under the last
    const run = numberedRun(
      top,
      small,
      (c, last) =>
        Math.abs(c[0] - last[0]) <= TOUCH && Math.abs(c[2] - last[2]) <= TOUCH && Math.abs(c[3] - last[1]) <= TOUCH,
    );
    if (run.length >= 2 && run.length <= 4) for (const x of run) out.add(x.c);
  }
  return out;
}

/**
 * A box one line of text high, its caption in it, sitting right on top of a comb it spans ("Social
 * security number" over the digit cells): the comb's caption strip, not a blank beside the caption.
 */
function captionStrip(c: Rect, texts: TextBox[], combs: { rect: Rect }[]): boolean {
  const held = texts.filter((t) => intersection(t.rect, c) > 0.5 * area(t.rect));
  if (held.length === 0) return false;
  const line = Math.max(...held.map((t) => height(t.rect)));
  if (height(c) > 1.8 * line) return false;
  return combs.some(
    (o) => o.rect[3] <= c[1] + TOUCH && c[1] - o.rect[3] <= 3 && overlapX(o.rect, c) >= 0.8 * width(o.rect),
  );
}

/**
 * A narrow empty box that ends a row of boxes: the cents after an amount's dollars (tax forms), the
 * answer box after a question's cell. No taller than wide (a strip down the margin is layout), and no
 * blank box after it (white, no words: the number column between two amount columns holds nothing to write either).
 */
function endsRow(c: Rect, boxes: Rect[], blank: (r: Rect) => boolean): boolean {
  if (width(c) < MIN_BOX_WIDTH || height(c) > width(c)) return false;
  const covers = (o: Rect) => o[1] <= c[1] + TOUCH && o[3] >= c[3] - TOUCH;
  const before = boxes.some((o) => o !== c && covers(o) && Math.abs(o[2] - c[0]) <= TOUCH);
  const after = boxes.some(
    (o) => o !== c && Math.abs(o[0] - c[2]) <= TOUCH && overlapY(o, c) > 0.5 * height(c) && blank(o),
  );
  return before && !after;
}

/**
 * The candidates of one page. `pageBox` is the visible box (user space); `texts` the page's phrases;
 * `marks` the underscores, box characters and date placeholders of its text.
 */
export function findFields(
  ink: PageInk,
  texts: TextBox[],
  marks: TextMark[],
  pageBox: Rect,
  limits: FindLimits,
  /** the runs the phrases are made of (words a little apart), for the captions under a line */
  runs: TextBox[] = texts,
): { candidates: Candidate[]; capped: boolean } {
  const pageArea = area(pageBox);
  const pageWidth = width(pageBox);
  // a run of underscores is a writing line drawn with text
  const blanks = marks
    .filter((m) => m.kind === 'blank')
    .map((m): Segment => ({ x0: m.rect[0], y0: m.rect[1], x1: m.rect[2], y1: m.rect[1] }));
  const horizontal = joinLines([...ink.horizontal, ...blanks], true);
  const vertical = joinLines(ink.vertical, false);
  const drawn = findCells(horizontal, vertical, limits.maxCells);
  const same = (a: Rect, b: Rect) => a.every((v, i) => Math.abs(v - b[i]) <= TOUCH);
  const cells = [
    ...drawn,
    ...whiteBoxes(ink.fills)
      .filter((w) => !drawn.some((c) => same(c, w)))
      .slice(0, Math.max(0, limits.maxCells - drawn.length)),
  ];
  // placeholders are where to write, not captions: they do not make a box "taken"
  const dates = marks.filter((m) => m.kind === 'date');
  const notDate = (t: TextBox) => !dates.some((d) => intersection(d.rect, t.rect) > 0.6 * area(t.rect));
  const words = texts.filter(notDate);
  const pieces = runs.filter(notDate);
  const out: Candidate[] = [];

  // 1. numbered choices, rows of cells (combs), then squares (check boxes), then the other boxes
  const choices = numberedChoices(cells, words);
  for (const c of choices) out.push({ kind: 'checkbox', rect: c, confidence: 0.7 });
  const combs = combRows(
    cells.filter((c) => !choices.has(c)),
    (r) => !words.some((t) => intersection(t.rect, r) > 0.3 * area(t.rect)),
  );
  const inComb = new Set(combs.flatMap((c) => c.members));
  for (const c of combs) {
    const empty = !words.some((t) => intersection(t.rect, c.rect) > 0.5 * area(t.rect));
    if (empty) out.push({ kind: 'comb', rect: c.rect, cells: c.cells, confidence: 0.85 });
  }
  const boxes = cells.filter((c) => !inComb.has(c) && !choices.has(c));
  const parts = dateParts(boxes, texts);
  const shadeOf = shading(ink.fills);
  const holdsText = (r: Rect) => words.some((t) => intersection(t.rect, r) > 0.5 * area(t.rect));
  for (const c of boxes) {
    // a box holding boxes is their frame; a dark tag in its corner (a line number printed white on
    // black) is only part of its caption
    const holds = boxes.some((o) => o !== c && inside(o, c) && area(o) < 0.9 * area(c) && shadeOf(o) >= DARK);
    if (holds || area(c) > 0.4 * pageArea) continue;
    // a shaded box with words in it is a heading of a table or a section, not a place to write
    if (shadeOf(c) < SHADED && words.some((t) => intersection(t.rect, c) > 0.5 * area(t.rect))) continue;
    if (parts.has(c)) {
      out.push({ kind: 'text', rect: c, confidence: 0.8 });
      continue;
    }
    if (isSquare(c)) {
      if (!words.some((t) => intersection(t.rect, c) > 0.3 * area(t.rect)))
        out.push({ kind: 'checkbox', rect: c, confidence: 0.85 });
      continue;
    }
    if (width(c) < MIN_BOX_WIDTH || height(c) < MIN_FIELD_HEIGHT) continue;
    if (captionStrip(c, words, combs)) continue;
    const open = besideShade(c, ink.fills, boxes, holdsText);
    const free = open && freePart(open, words);
    if (!free || height(free) < MIN_FIELD_HEIGHT) continue;
    const whole = free[3] === open[3] && free[0] === open[0];
    if (
      width(free) < MIN_FIELD_WIDTH &&
      !(whole && free[2] === open[2] && endsRow(free, boxes, (o) => !holdsText(o) && shadeOf(o) >= SHADED))
    )
      continue;
    // a caption on top of a box is a form's label; words beside the room, or lines of them, are content
    const beside = free[0] !== c[0];
    // ("$" or a line number before the room is the field's own prefix)
    const said = words
      .filter((t) => intersection(t.rect, c) > 0.5 * area(t.rect))
      .map((t) => t.text.trim())
      .join('');
    if (!whole && said.length > 3 && (beside || textLines(c, words) >= 2) && printedRow(c, boxes, holdsText)) continue;
    // a chart's row whose neighbour's words run down to its bottom, under or over another printed row:
    // the room under these words is layout
    const chart = (r: Rect) => printedRow(r, boxes, holdsText);
    if (!whole && said.length > 3 && chart(c) && rowFilled(c, boxes, words) && stacked(c, boxes).some(chart)) continue;
    if (!whole && said.length > 3 && tableHeading(c, beside, boxes, (o) => !holdsText(o) && shadeOf(o) >= SHADED))
      continue;
    const date = dates.find((d) => intersection(d.rect, free) > 0.5 * area(d.rect));
    if (date) out.push({ kind: 'date', rect: free, dateFormat: date.dateFormat, confidence: 0.85 });
    else if (height(free) >= MULTILINE_HEIGHT && width(free) >= 80)
      out.push({ kind: 'multiline', rect: free, confidence: whole ? 0.7 : 0.6 });
    else out.push({ kind: 'text', rect: free, confidence: whole ? 0.8 : 0.7 });
  }

  // 2. writing lines: horizontal lines that are not the edge of a box
  const edges = [...boxes, ...combs.map((c) => c.rect)];
  for (const l of horizontal) {
    const len = l.x1 - l.x0;
    if (len < MIN_LINE_WIDTH || len > 0.85 * pageWidth) continue;
    const edged = edges.reduce((s, c) => {
      const onEdge = Math.abs(c[1] - l.y0) <= TOUCH || Math.abs(c[3] - l.y0) <= TOUCH;
      return onEdge ? s + Math.max(0, Math.min(c[2], l.x1) - Math.max(c[0], l.x0)) : s;
    }, 0);
    if (edged > 0.3 * len) continue;
    const room = roomAbove(l.y0, l.x0, l.x1, horizontal, words, LINE_FIELD_HEIGHT + 2);
    if (room < MIN_FIELD_HEIGHT + 1) continue;
    const h = Math.min(LINE_FIELD_HEIGHT, room - 1);
    const band: Rect = [l.x0, l.y0 + 1, l.x1, l.y0 + h];
    const span = widestFree(l.x0, l.x1, band, words);
    if (!span) continue;
    for (const [x0, x1] of splitByCaptionsBelow(l.y0, span, pieces)) {
      const rect: Rect = [x0, l.y0 - 0.5, x1, l.y0 + h - 0.5];
      const date = dates.find((d) => intersection(d.rect, rect) > 0.5 * area(d.rect));
      if (date) out.push({ kind: 'date', rect, dateFormat: date.dateFormat, confidence: 0.85, line: true });
      else out.push({ kind: 'text', rect, confidence: span[1] - span[0] > 0.8 * len ? 0.7 : 0.6, line: true });
    }
  }

  // 3. marks in the text: underscores, box characters, placeholders not already in a box or on a line
  // covered by one candidate or by the pieces of a line split under its captions
  const taken = (r: Rect) => out.reduce((s, c) => s + intersection(c.rect, r), 0) > 0.5 * area(r);
  for (const m of marks) {
    if (taken(m.rect)) continue;
    if (m.kind === 'box') out.push({ kind: 'checkbox', rect: m.rect, confidence: 0.9 });
    else if (m.kind === 'date') out.push({ kind: 'date', rect: m.rect, dateFormat: m.dateFormat, confidence: 0.85 });
    else if (width(m.rect) >= MIN_FIELD_WIDTH) out.push({ kind: 'text', rect: m.rect, confidence: 0.75, line: true });
  }
  for (const r of ink.rings) {
    if (!taken(r) && !out.some((c) => c.kind === 'ring' && intersection(c.rect, r) > 0.5 * area(r)))
      out.push({ kind: 'ring', rect: r, confidence: 0.8 });
  }

  // 4. nothing is written on a dark bar; overlaps: the surer, then the smaller, candidate keeps its place
  const onPaper = out.filter((c) => shadeOf(c.rect) >= DARK);
  onPaper.sort((a, b) => b.confidence - a.confidence || area(a.rect) - area(b.rect));
  const kept: Candidate[] = [];
  for (const c of onPaper) {
    if (kept.some((k) => intersection(k.rect, c.rect) > 0.5 * Math.min(area(k.rect), area(c.rect)))) continue;
    kept.push(c);
  }
  const capped = kept.length > limits.maxCandidates;
  return { candidates: kept.slice(0, limits.maxCandidates), capped };
}
