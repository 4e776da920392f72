// The tiers of map-fields.ts that reach past an exact sign, for a redesigned form (the 1040 2010 -> 2024):
// labels worded alike, then the layout around pairs already made (a row read left to right, a box
// where its nearest paired neighbour moved). Pure; each tier pairs only the unpaired fields it is given.
import type { AnalysedField, Rect } from '../../pdf/types.js';

export type LayoutMatch = 'similar-label' | 'row' | 'neighbour';

export interface LayoutPair {
  old: AnalysedField;
  next: AnalysedField;
  by: LayoutMatch;
  /** 0..1: how strongly the sign says "the same field" */
  confidence: number;
}

/** Word-set likeness (Dice) at which two labels name the same thing. */
const SIMILAR = 0.7;
/** How far (points between centres) the paired neighbour a field follows may be. */
const NEIGHBOUR_REACH = 72;
/** Overlap (intersection over union) of the predicted box with the new one. */
const NEIGHBOUR_OVERLAP = 0.5;

// words that say nothing about which field it is: form boilerplate and connectives
const STOP = new Set(['a', 'an', 'and', 'or', 'of', 'the', 'to', 'see', 'instructions', 'inst', 'if', 'for']);

export const kind = (f: AnalysedField) => (f.type === 'date' || f.type === 'number' ? 'text' : f.type);

/** The label's words: lower case, letters only (line numbers like "8a" say where, not what), no boilerplate. */
export function words(f: AnalysedField): Set<string> {
  const found = (f.label ?? '').toLowerCase().match(/\p{L}[\p{L}\d]*/gu) ?? [];
  return new Set(found.filter((w) => w.length > 1 && !/\d/.test(w) && !STOP.has(w)));
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let common = 0;
  for (const w of a) if (b.has(w)) common++;
  return (2 * common) / (a.size + b.size);
}

/** words(), each field's computed once per call of a tier. */
function wordsOnce(): (f: AnalysedField) => Set<string> {
  const seen = new Map<AnalysedField, Set<string>>();
  return (f) => {
    let w = seen.get(f);
    if (!w) seen.set(f, (w = words(f)));
    return w;
  };
}

/** Both labels say something and nothing alike: the layout's guess is contradicted. */
function contradicts(wa: Set<string>, wb: Set<string>): boolean {
  return wa.size > 0 && wb.size > 0 && dice(wa, wb) === 0;
}

export function rectOf(f: AnalysedField): Rect | undefined {
  const r = f.pdfMeta.rect;
  return r && r[2] > r[0] && r[3] > r[1] ? r : undefined;
}

export function iou(ra: Rect, rb: Rect): number {
  const w = Math.min(ra[2], rb[2]) - Math.max(ra[0], rb[0]);
  const h = Math.min(ra[3], rb[3]) - Math.max(ra[1], rb[1]);
  if (w <= 0 || h <= 0) return 0;
  const area = (r: Rect) => (r[2] - r[0]) * (r[3] - r[1]);
  return (w * h) / (area(ra) + area(rb) - w * h);
}

const centre = (r: Rect) => [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2] as const;

/**
 * Labels worded alike (Dice over their words >= SIMILAR), same page and kind; one-to-one, greedy by
 * descending likeness. Equal likeness among several fields on both sides goes by reading order (the n-th
 * "(1) First name" of the old dependents table is the n-th of the new, the fields' order in the file);
 * one field alike to several on the other side ("Phone no." of the firm, "Phone no." of the taxpayer and
 * of the firm) is ambiguous and left to the layout tiers.
 */
export function pairBySimilarLabel(olds: AnalysedField[], nexts: AnalysedField[]): LayoutPair[] {
  const oldWords = olds.map(words);
  const newWords = nexts.map(words);
  const candidates: { o: number; n: number; score: number }[] = [];
  olds.forEach((old, o) => {
    nexts.forEach((next, n) => {
      if (old.pdfMeta.page !== next.pdfMeta.page || kind(old) !== kind(next)) return;
      const score = dice(oldWords[o], newWords[n]);
      if (score >= SIMILAR) candidates.push({ o, n, score });
    });
  });
  // how many fields of the other side each field is alike to, at each likeness
  const tally = new Map<string, number>();
  const bump = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
  for (const c of candidates) {
    bump(`o${c.o}:${c.score}`);
    bump(`n${c.n}:${c.score}`);
  }
  const clear = candidates.filter(({ o, n, score }) => {
    const [co, cn] = [tally.get(`o${o}:${score}`)!, tally.get(`n${n}:${score}`)!];
    return (co === 1 && cn === 1) || (co > 1 && cn > 1);
  });
  clear.sort((a, b) => b.score - a.score || a.o - b.o || a.n - b.n);
  const usedOld = new Set<number>();
  const usedNew = new Set<number>();
  const pairs: LayoutPair[] = [];
  for (const { o, n, score } of clear) {
    if (usedOld.has(o) || usedNew.has(n)) continue;
    usedOld.add(o);
    usedNew.add(n);
    pairs.push({ old: olds[o], next: nexts[n], by: 'similar-label', confidence: round(0.85 * score) });
  }
  return pairs;
}

/** The fields of `all` on f's page whose vertical centre lies within f's height, left to right. */
function rowOf(f: AnalysedField, all: AnalysedField[]): AnalysedField[] {
  const r = rectOf(f);
  if (!r) return [];
  return all
    .filter((g) => {
      const q = rectOf(g);
      if (!q || g.pdfMeta.page !== f.pdfMeta.page) return false;
      const cy = (q[1] + q[3]) / 2;
      return cy >= r[1] && cy <= r[3];
    })
    .sort((a, b) => rectOf(a)![0] - rectOf(b)![0]);
}

/**
 * A row of the old page and one of the new page that a pair ties together, read left to right and lined
 * up at that pair; when every pair already made in either row sits at the same place of the other, their
 * unpaired fields pair by place when of the same kind and not labelled unalike (the 1040's "first name |
 * last name | SSN" row; the dependents table, whose new column at the rows' end leaves the others in
 * order; the campaign boxes "You | Spouse", with new foreign-address fields to their left).
 */
export function pairByRow(
  oldAll: AnalysedField[],
  newAll: AnalysedField[],
  made: ReadonlyMap<AnalysedField, AnalysedField>,
): LayoutPair[] {
  const madeNew = new Map([...made].map(([o, n]) => [n, o]));
  const w = wordsOnce();
  const pairs: LayoutPair[] = [];
  const taken = new Set<AnalysedField>();
  for (const [anchor, anchorNext] of made) {
    const oldRow = rowOf(anchor, oldAll);
    const newRow = rowOf(anchorNext, newAll);
    const shift = newRow.indexOf(anchorNext) - oldRow.indexOf(anchor);
    const agree =
      oldRow.every((f, i) => !made.has(f) || made.get(f) === newRow[i + shift]) &&
      newRow.every((g, j) => !madeNew.has(g) || madeNew.get(g) === oldRow[j - shift]);
    if (!agree) continue;
    oldRow.forEach((f, i) => {
      const g = newRow[i + shift] as AnalysedField | undefined;
      if (!g || made.has(f) || madeNew.has(g) || taken.has(f) || taken.has(g)) return;
      if (kind(f) !== kind(g) || contradicts(w(f), w(g))) return;
      taken.add(f).add(g);
      pairs.push({ old: f, next: g, by: 'row', confidence: 0.6 });
    });
  }
  return pairs;
}

/**
 * An unpaired old field follows its nearest paired neighbour on the page (centres within an inch): moved
 * by the same offset, its box must overlap a new unpaired box of its kind by half of their union, each
 * the other's best, and one of the two be labelled (the city line under the home address, a table's last row under the one before).
 */
export function pairByNeighbour(
  olds: AnalysedField[],
  nexts: AnalysedField[],
  made: ReadonlyMap<AnalysedField, AnalysedField>,
): LayoutPair[] {
  const w = wordsOnce();
  const anchors = byPage(
    [...made].filter(([o, n]) => o.pdfMeta.page === n.pdfMeta.page && rectOf(o) && rectOf(n)),
    ([o]) => o,
  );
  const predicted = new Map<AnalysedField, Rect>();
  for (const f of olds) {
    const r = rectOf(f);
    if (!r) continue;
    const [cx, cy] = centre(r);
    let best: { d: number; dx: number; dy: number } | undefined;
    for (const [o, n] of anchors.get(f.pdfMeta.page) ?? []) {
      const [ox, oy] = centre(rectOf(o)!);
      const d = Math.hypot(ox - cx, oy - cy);
      if (d > NEIGHBOUR_REACH || (best && d >= best.d)) continue;
      const [nx, ny] = centre(rectOf(n)!);
      best = { d, dx: nx - ox, dy: ny - oy };
    }
    if (best) predicted.set(f, [r[0] + best.dx, r[1] + best.dy, r[2] + best.dx, r[3] + best.dy]);
  }
  const score = (f: AnalysedField, g: AnalysedField) => {
    const p = predicted.get(f);
    const q = rectOf(g);
    if (!p || !q || f.pdfMeta.page !== g.pdfMeta.page || kind(f) !== kind(g) || contradicts(w(f), w(g))) return 0;
    // words on one side at least: two unlabelled boxes in each other's place are a guess (a field
    // removed at the end of a list, another added below it)
    return w(f).size > 0 || w(g).size > 0 ? iou(p, q) : 0;
  };
  const newByPage = byPage(nexts, (g) => g);
  const oldByPage = byPage([...predicted.keys()], (f) => f);
  const bestOf = <T>(items: T[], value: (x: T) => number) => {
    let top: T | undefined;
    let s = NEIGHBOUR_OVERLAP;
    for (const x of items) {
      const v = value(x);
      if (v >= s) [top, s] = [x, v];
    }
    return top;
  };
  const pairs: LayoutPair[] = [];
  for (const f of predicted.keys()) {
    const g = bestOf(newByPage.get(f.pdfMeta.page) ?? [], (n) => score(f, n));
    if (g && bestOf(oldByPage.get(g.pdfMeta.page) ?? [], (o) => score(o, g)) === f)
      pairs.push({ old: f, next: g, by: 'neighbour', confidence: round(0.6 * score(f, g)) });
  }
  return pairs;
}

/** Items grouped by the page of their field. */
function byPage<T>(items: T[], fieldOf: (item: T) => AnalysedField): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const item of items) {
    const page = fieldOf(item).pdfMeta.page;
    const list = m.get(page);
    if (list) list.push(item);
    else m.set(page, [item]);
  }
  return m;
}

const round = (x: number) => Math.round(x * 100) / 100;
