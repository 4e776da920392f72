// Captions, types and keys of a page's candidates: the caption finder of the analysis (page-labels.ts)
// reads each candidate's label as it reads a widget's; buttons in a row answering one question become
// a radio group; a box captioned as a date or a signature becomes one; keys come from the labels.
import {
  buttonCaption,
  buttonWords,
  cleanCaption,
  groupCaption,
  type LabelPage,
  labelPage,
  textCaption,
} from '../analysis/page-labels.js';
import { type PageText, toFrame } from '../analysis/page-text.js';
import type { Phrase } from '../analysis/text-phrases.js';
import type { Rect } from '../types.js';
import { rowQuestion, sentenceAbove, signatureBefore } from './row-context.js';
import { blockHeading, hangingPhrase } from './caption-below.js';
import { columnHeader } from './column-header.js';
import type { KeyContext } from './detection-keys.js';
import type { Candidate } from './find-fields.js';

export type DetectedType = 'text' | 'multiline' | 'comb' | 'date' | 'checkbox' | 'radio' | 'signature';

/** A field found on a page, before it gets its key. */
export interface PageDetection {
  type: DetectedType;
  /** the box in user space; for a radio group, the box around its buttons */
  rect: Rect;
  label: string | null;
  confidence: number;
  cells?: number;
  dateFormat?: string;
  /** radio: each button's box, and the words beside it (its option) */
  widgets?: Rect[];
  options?: string[];
}

/** A detection with what its key may need of the page. */
export interface LabelledDetection extends PageDetection {
  context?: KeyContext;
}

const SIGNATURE = /\b(?:signature|signatures|unterschrift|firma|signé|sign here|signed)\b/iu;
const DATE_CAPTION = /(?:^|\b)(?:date|datum|fecha|data|fait le|le \.\.\.|dated)(?:\b|$)/iu;

const midY = (r: Rect) => (r[1] + r[3]) / 2;
const side = (r: Rect) => Math.max(r[2] - r[0], r[3] - r[1]);
const union = (rs: Rect[]): Rect => [
  Math.min(...rs.map((r) => r[0])),
  Math.min(...rs.map((r) => r[1])),
  Math.max(...rs.map((r) => r[2])),
  Math.max(...rs.map((r) => r[3])),
];

/**
 * Rings that answer one question: on one line, or stacked in one column. Squares stay check boxes
 * (the printed convention: a square may be ticked with others, a circle is one of a set; forms print
 * "☐ Oui ☐ Non" as two check boxes as often as not). Indexes into `buttons`, groups of two or more.
 */
function radioGroups(buttons: { rect: Rect; ring: boolean }[]): number[][] {
  const groups: number[][] = [];
  const used = new Set<number>();
  const order = buttons
    .map((_, i) => i)
    .sort((a, b) => midY(buttons[b].rect) - midY(buttons[a].rect) || buttons[a].rect[0] - buttons[b].rect[0]);
  for (const i of order) {
    if (used.has(i)) continue;
    const a = buttons[i];
    const row = order.filter(
      (j) =>
        !used.has(j) &&
        Math.abs(midY(buttons[j].rect) - midY(a.rect)) < 0.4 * side(a.rect) &&
        buttons[j].ring &&
        a.ring,
    );
    // a row ends where the gap to the next button is wider than a short answer needs
    row.sort((p, q) => buttons[p].rect[0] - buttons[q].rect[0]);
    const start = row.indexOf(i);
    const picked = [i];
    for (let k = start + 1; k < row.length; k++) {
      if (buttons[row[k]].rect[0] - buttons[row[k - 1]].rect[2] > 14 * side(a.rect)) break;
      picked.push(row[k]);
    }
    if (a.ring && picked.length < 2) {
      // rings stacked in a column
      const col = order.filter(
        (j) => !used.has(j) && buttons[j].ring && Math.abs(buttons[j].rect[0] - a.rect[0]) < 0.5 * side(a.rect),
      );
      col.sort((p, q) => buttons[q].rect[3] - buttons[p].rect[3]);
      const s = col.indexOf(i);
      for (let k = s + 1; k < col.length; k++) {
        if (buttons[col[k - 1]].rect[1] - buttons[col[k]].rect[3] > 3 * side(a.rect)) break;
        picked.push(col[k]);
      }
    }
    if (picked.length < 2) continue;
    for (const j of picked) used.add(j);
    groups.push(picked);
  }
  return groups;
}

/** Options named after the words beside each button, else "1", "2"...; made unique. */
function optionNames(words: string[]): string[] {
  const seen = new Set<string>();
  return words.map((w, i) => {
    let o = w.trim().slice(0, 60) || String(i + 1);
    for (let n = 2; seen.has(o); n++) o = `${w.trim().slice(0, 56) || i + 1} (${n})`;
    seen.add(o);
    return o;
  });
}

/**
 * The page's detections, labelled and typed. `text` is undefined when the page's text was not read;
 * `existing` are the boxes of the form's own widgets on the page.
 */
export function labelDetections(
  candidates: Candidate[],
  text: PageText | undefined,
  existing: Rect[] = [],
): LabelledDetection[] {
  const pageText = text ?? { rotation: 0, runs: [] };
  // the form's own widgets stand between text and the detections as any field does
  const others = existing.map((rect, k) => ({ owner: -1 - k, rect }));
  const isButton = (c: Candidate) => c.kind === 'checkbox' || c.kind === 'ring';
  const buttonIdx = candidates.map((c, i) => (isButton(c) ? i : -1)).filter((i) => i >= 0);
  const buttons = buttonIdx.map((i) => ({
    rect: candidates[i].rect,
    ring: candidates[i].kind === 'ring',
  }));
  const groups = radioGroups(buttons).map((g) => g.map((k) => buttonIdx[k]));
  const grouped = new Set(groups.flat());

  // the fields: every candidate not in a group, then one per group
  const fields: { members: number[] }[] = [
    ...candidates.map((_, i) => ({ members: [i] })).filter((f) => !grouped.has(f.members[0])),
    ...groups.map((members) => ({ members })),
  ];
  const page = labelPage(pageText, [
    ...fields.flatMap((f, owner) => f.members.map((i) => ({ owner, rect: candidates[i].rect }))),
    ...others,
  ]);
  // captions hanging under writing lines, and the lines they hang from
  const hanging = new Map<number, Phrase>();
  for (const [owner, f] of fields.entries()) {
    const c = candidates[f.members[0]];
    const p = f.members.length === 1 && c.line ? hangingPhrase(page, c.rect) : undefined;
    if (p) hanging.set(owner, p);
  }
  const under = new Set(hanging.values());
  const headings = new Map<number, string>();
  for (const [owner, p] of hanging)
    headings.set(owner, blockHeading(page, candidates[fields[owner].members[0]].rect, p, under));
  // a line under a line, captioned by what hangs under the one above, is its second line (an address)
  const lineAbove = (r: Rect, caption: string) =>
    [...hanging].find(([o, p]) => {
      const a = candidates[fields[o].members[0]].rect;
      return (
        cleanCaption(p.text) === caption && Math.abs(a[0] - r[0]) < 3 && a[1] > r[3] && a[1] - r[3] < 3 * (a[3] - a[1])
      );
    })?.[0];
  const labelled = fields.map((f, owner): LabelledDetection => {
    const c = candidates[f.members[0]];
    if (f.members.length > 1) {
      const rects = f.members.map((i) => candidates[i].rect);
      const words = f.members.map((i) => buttonWords(page, owner, candidates[i].rect));
      const caption = groupCaption(page, owner, rects, words);
      const confidence = Math.min(...f.members.map((i) => candidates[i].confidence)) - 0.05;
      return {
        type: 'radio',
        rect: union(rects),
        label: caption || null,
        confidence: withLabel(confidence, caption),
        widgets: rects,
        options: optionNames(words),
      };
    }
    if (isButton(c)) {
      const caption = buttonCaption(page, owner, c.rect);
      const question = rowQuestion(page, c.rect);
      return {
        type: 'checkbox',
        rect: c.rect,
        label: caption || null,
        confidence: withLabel(c.confidence, caption),
        ...(question && question !== caption ? { context: { question } } : {}),
      };
    }
    const hung = hanging.get(owner);
    const found = hung ? cleanCaption(hung.text) : textCaption(page, owner, c.rect);
    // a bare writing line finishes the sentence above it ("with a mailing address of")
    const caption = found || (c.line ? sentenceAbove(page, c.rect) : '');
    const first = hung || !c.line ? undefined : lineAbove(c.rect, caption);
    const heading = headings.get(first ?? owner) ?? '';
    const signed = DATE_CAPTION.test(caption) ? signatureBefore(page, c.rect) : '';
    const context = { ...(heading ? { heading } : {}), ...(signed ? { signed } : {}) };
    const base = {
      rect: c.rect,
      label: caption || null,
      confidence: withLabel(c.confidence, caption),
      ...(heading || signed ? { context } : {}),
    };
    if (c.kind === 'comb') return { ...base, type: 'comb', cells: c.cells };
    if (c.kind === 'date') return { ...base, type: 'date', dateFormat: c.dateFormat };
    if (SIGNATURE.test(caption) || SIGNATURE.test(below(pageText, c.rect))) return { ...base, type: 'signature' };
    if (c.kind === 'text' && DATE_CAPTION.test(caption) && c.rect[2] - c.rect[0] < 200)
      return { ...base, type: 'date', dateFormat: 'dd/mm/yyyy' };
    return { ...base, type: c.kind === 'multiline' ? 'multiline' : 'text' };
  });
  return withHeaders(page, labelled);
}

/** Boxes side by side on one row: their heights overlap by more than half. */
const sameRow = (a: Rect, b: Rect) =>
  Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5 * Math.min(a[3] - a[1], b[3] - b[1]);

/**
 * Cells of a table row labelled by the column's header instead of what the caption finder read for
 * them: a bare column number ("(1)"), or the one header line several cells of the row were all given.
 * The type stays what the caption made it.
 */
function withHeaders(page: LabelPage, found: LabelledDetection[]): LabelledDetection[] {
  const headed = found.map((d, i) => {
    if (d.type === 'checkbox' || d.type === 'radio' || !d.label) return d;
    const bare = !/\p{L}/u.test(d.label);
    const shared = found.some(
      (o, j) =>
        j !== i && o.label === d.label && o.type !== 'checkbox' && o.type !== 'radio' && sameRow(o.rect, d.rect),
    );
    if (!bare && !shared) return d;
    const header = columnHeader(page, d.rect);
    return header ? { ...d, label: header } : d;
  });
  return headed.map((d) => withGroupHeader(page, headed, d));
}

/** A column's own one-word header ("From-", "To-"), under the header of its group. */
const SUB_HEADER = /^\p{L}{1,6}\W?$/u;

/**
 * Two touching cells of a row headed each by one word ("From-" | "To-") under one header spanning both
 * ("Experience Rate Period"): each is labelled by the group's header and its own word.
 */
function withGroupHeader(page: LabelPage, found: LabelledDetection[], d: LabelledDetection): LabelledDetection {
  if (!d.label || !SUB_HEADER.test(d.label)) return d;
  // (the neighbour may already read its group's header before its word: "Experience Rate Period To-")
  const word = (label: string | null) => label?.split(' ').pop() ?? '';
  const pair = found.find(
    (o) =>
      o !== d &&
      word(o.label) !== d.label &&
      SUB_HEADER.test(word(o.label)) &&
      sameRow(o.rect, d.rect) &&
      (Math.abs(o.rect[0] - d.rect[2]) <= 1.5 || Math.abs(o.rect[2] - d.rect[0]) <= 1.5),
  );
  if (!pair) return d;
  // the group's header is printed across the edge the two cells share
  const edge = toFrame(Math.abs(pair.rect[0] - d.rect[2]) <= 1.5 ? d.rect : pair.rect, page.rotation)[2];
  const top = toFrame(d.rect, page.rotation)[3];
  const across = page.phrases.some(
    (p) => p.x0 < edge - p.size && p.x1 > edge + p.size && p.bottom >= top && p.bottom - top < 6 * p.size,
  );
  if (!across) return d;
  const both: Rect = [
    Math.min(d.rect[0], pair.rect[0]),
    Math.min(d.rect[1], pair.rect[1]),
    Math.max(d.rect[2], pair.rect[2]),
    Math.max(d.rect[3], pair.rect[3]),
  ];
  const own = new Set([d.label, word(pair.label)]);
  const group = columnHeader(page, both)
    .split(' ')
    .filter((w) => !own.has(w))
    .join(' ');
  return group && group !== d.label ? { ...d, label: `${group} ${d.label}` } : d;
}

/** A caption found makes a detection surer; none makes it less so. */
const withLabel = (confidence: number, caption: string) =>
  Math.round(Math.max(0.05, Math.min(0.99, confidence + (caption ? 0.1 : -0.15))) * 100) / 100;

/** The words printed just under a line (a signature line captioned beneath), for typing only. */
function below(text: PageText, r: Rect): string {
  if (text.rotation !== 0) return '';
  return text.runs
    .filter(
      (t) => t.y + 0.8 * t.size <= r[1] + 2 && r[1] - (t.y + 0.8 * t.size) < 1.5 * t.size && t.x1 > r[0] && t.x0 < r[2],
    )
    .map((t) => t.text)
    .join(' ');
}
