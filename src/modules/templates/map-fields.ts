// Which field of a new edition of a form is which field of the old one, so that a file replacement keeps
// the keys, defaults and rules of the fields a person sees as the same. Pure: two analyses in, pairs out.
//
// Tiers, each only among fields no earlier tier paired, each one-to-one:
// 1. the same PDF name;
// 2. the same label (tooltip, else the caption on the page) and type, unique on both sides; a label of
//    no word (". 12") is a line number and does not count;
// 3. the same last part of the PDF name (digits read as numbers: f1_1 = f1_01) and type, on the same page,
//    moved at most a third of an inch across and an inch down or up: a form regenerated under renamed
//    parents with lines added above (the IRS W-9 2018 -> 2024: "Address" -> "Address_ReadOrder");
// 4. the same type on the same page with widget boxes that overlap by 70 % of their union or more, each
//    the other's best: a field renamed in place;
// 5. labels worded alike (map-fields-layout.ts: word sets, Dice >= 0.7, same page and kind, greedy by
//    likeness, ties among several on both sides in reading order): a redesign rewords its captions;
// 6. then, until nothing more pairs, the layout around the pairs made: the rest of a row whose pairs sit
//    at the same places in both files, and a box that moved with its nearest paired neighbour.
// Precision first: a wrong pair sends a caller's value to another box, a missing one only asks the team
// to set the key again. The bounds are tight for that reason: on the 1040 2010 -> 2024 (a redesign), half
// overlaps pair different lines of the amount column, and a same-named box two inches away is another box.
import type { AnalysedField } from '../../pdf/types.js';
import {
  iou,
  kind,
  pairByNeighbour,
  pairByRow,
  pairBySimilarLabel,
  rectOf,
  words,
  type LayoutMatch,
} from './map-fields-layout.js';

export type MatchedBy = 'pdf-name' | 'label' | 'name-part' | 'place' | LayoutMatch;

export interface FieldPair {
  old: AnalysedField;
  next: AnalysedField;
  by: MatchedBy;
  /** 0..1: how strongly the sign that paired them says "the same field" (1: the same PDF name) */
  confidence: number;
}

export interface FieldMatch {
  pairs: FieldPair[];
  /** new fields paired with no old one */
  added: AnalysedField[];
  /** old fields paired with no new one */
  removed: AnalysedField[];
}

/** How far (points between centres) a same-named box may move across and down and still be the same. */
const NEAR_X = 24;
const NEAR_Y = 72;
/** Overlap (intersection over union) at which two boxes on a page are one field moved a little. */
const SAME_PLACE = 0.7;

// the label a person reads (tooltip, else caption); not suggestedName, which falls back to the PDF name.
// A label of no word (". 12", ", 20") is a line number: it says where a field is, not what, and a
// redesign renumbers its lines (line 12 of the 1040 2010 is business income, of 2024 the deduction).
const labelOf = (f: AnalysedField) => {
  const text = f.label;
  return text && words(f).size > 0 ? text.toLowerCase().replace(/\s+/g, ' ').trim() : undefined;
};

/** "a.b[0].f1_01[0]" -> "f1_1[0]": the last part, numbers without leading zeros. */
function namePart(f: AnalysedField): string {
  const parts = f.pdfMeta.originalName.split('.');
  return parts[parts.length - 1].replace(/\d+/g, (d) => String(Number(d)));
}

function near(a: AnalysedField, b: AnalysedField): boolean {
  const ra = rectOf(a);
  const rb = rectOf(b);
  if (!ra || !rb || a.pdfMeta.page !== b.pdfMeta.page) return false;
  const dx = Math.abs((ra[0] + ra[2]) / 2 - (rb[0] + rb[2]) / 2);
  const dy = Math.abs((ra[1] + ra[3]) / 2 - (rb[1] + rb[3]) / 2);
  return dx <= NEAR_X && dy <= NEAR_Y;
}

function overlap(a: AnalysedField, b: AnalysedField): number {
  const ra = rectOf(a);
  const rb = rectOf(b);
  return ra && rb && a.pdfMeta.page === b.pdfMeta.page ? iou(ra, rb) : 0;
}

/** Pairs fields whose `keyOf` is the same and unique among the unpaired fields of each side. */
function pairByKey(
  olds: AnalysedField[],
  nexts: AnalysedField[],
  keyOf: (f: AnalysedField) => string | undefined,
  by: MatchedBy,
  confidence: number,
  accept: (old: AnalysedField, next: AnalysedField) => boolean = () => true,
): FieldPair[] {
  const group = (fields: AnalysedField[]) => {
    const m = new Map<string, AnalysedField[]>();
    for (const f of fields) {
      const k = keyOf(f);
      if (k === undefined) continue;
      const list = m.get(k);
      if (list) list.push(f);
      else m.set(k, [f]);
    }
    return m;
  };
  const oldBy = group(olds);
  const pairs: FieldPair[] = [];
  for (const [k, news] of group(nexts)) {
    const candidates = oldBy.get(k);
    if (news.length !== 1 || candidates?.length !== 1) continue;
    if (accept(candidates[0], news[0])) pairs.push({ old: candidates[0], next: news[0], by, confidence });
  }
  return pairs;
}

/** Mutual best overlaps of the same kind, at least SAME_PLACE; only fields of one page and kind are compared. */
function pairByPlace(olds: AnalysedField[], nexts: AnalysedField[]): FieldPair[] {
  const slot = (f: AnalysedField) => `${f.pdfMeta.page}:${kind(f)}`;
  const bySlot = (fields: AnalysedField[]) => {
    const m = new Map<string, AnalysedField[]>();
    for (const f of fields) {
      const list = m.get(slot(f));
      if (list) list.push(f);
      else m.set(slot(f), [f]);
    }
    return m;
  };
  const oldSlots = bySlot(olds);
  const newSlots = bySlot(nexts);
  const best = (f: AnalysedField, others: AnalysedField[] | undefined) => {
    let top: AnalysedField | undefined;
    let score = SAME_PLACE;
    for (const o of others ?? []) {
      const s = overlap(f, o);
      if (s >= score) [top, score] = [o, s];
    }
    return top;
  };
  const pairs: FieldPair[] = [];
  for (const next of nexts) {
    const old = best(next, oldSlots.get(slot(next)));
    if (old && best(old, newSlots.get(slot(old))) === next)
      pairs.push({ old, next, by: 'place', confidence: Math.round(90 * overlap(old, next)) / 100 });
  }
  return pairs;
}

export function matchFields(olds: AnalysedField[], nexts: AnalysedField[]): FieldMatch {
  const pairs: FieldPair[] = [];
  let oldLeft = olds;
  let newLeft = nexts;
  const take = (found: FieldPair[]) => {
    pairs.push(...found);
    const usedOld = new Set(found.map((p) => p.old));
    const usedNew = new Set(found.map((p) => p.next));
    oldLeft = oldLeft.filter((f) => !usedOld.has(f));
    newLeft = newLeft.filter((f) => !usedNew.has(f));
  };
  take(pairByKey(oldLeft, newLeft, (f) => f.pdfMeta.originalName, 'pdf-name', 1));
  take(pairByKey(oldLeft, newLeft, (f) => (labelOf(f) ? `${kind(f)}:${labelOf(f)}` : undefined), 'label', 0.95));
  take(pairByKey(oldLeft, newLeft, (f) => `${kind(f)}:${namePart(f)}`, 'name-part', 0.9, near));
  take(pairByPlace(oldLeft, newLeft));
  take(pairBySimilarLabel(oldLeft, newLeft));
  // each pair the layout makes is a neighbour for the next round (a table's rows, one under the other)
  for (;;) {
    const made = new Map(pairs.map((p) => [p.old, p.next]));
    const found = pairByRow(olds, nexts, made);
    take(found.length > 0 ? found : pairByNeighbour(oldLeft, newLeft, made));
    if (found.length === 0 && pairs.length === made.size) break;
  }
  // in the new file's order, so reports read like the form
  const order = new Map(nexts.map((f, i) => [f, i]));
  pairs.sort((a, b) => order.get(a.next)! - order.get(b.next)!);
  return { pairs, added: newLeft, removed: oldLeft };
}
