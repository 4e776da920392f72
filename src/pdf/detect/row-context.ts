// What a field's line says around its own caption, for its key only: the question a row of check boxes
// answers ("Mobile ☐ Concentrateur ☐ Gaz comprimé"), the signature a date sits beside ("Buyer's
// Signature: ____ Date: ____"), the sentence a bare writing line completes ("with a mailing address of
// / ______").
import { cleanCaption, type LabelPage } from '../analysis/page-labels.js';
import { toFrame } from '../analysis/page-text.js';
import type { Phrase } from '../analysis/text-phrases.js';
import type { Rect } from '../types.js';

/** How far left of a field its row's words may stand, in font sizes. */
const REACH = 30;

const SIGNATURE = /\b(?:signature|signatures|unterschrift|firma|signé|signed)\b/iu;
/** A sentence that runs on into the blank after it ends with a preposition. */
const RUNS_ON = /\b(?:of|for|to|at|on|in|by|de|du|des|à|au|von|für|zu)$/iu;

const onLine = (p: Phrase, r: Rect) =>
  Math.min(p.top, r[3]) - Math.max(p.bottom, r[1]) >= 0.5 * Math.min(p.top - p.bottom, r[3] - r[1]);
const buttonSized = (r: Rect) => r[2] - r[0] < 2 * (r[3] - r[1]) && r[2] - r[0] < 30;

/** The phrases left of `r` on its line, nearest first. */
const leftOnLine = (page: LabelPage, r: Rect) =>
  page.phrases
    .filter((p) => onLine(p, r) && p.x1 <= r[0] + 0.5 * p.size && r[0] - p.x1 <= REACH * p.size)
    .sort((a, b) => b.x1 - a.x1);

/** The words of the row's question for the check box `rect` (user space), '' when there is none. */
export function rowQuestion(page: LabelPage, rect: Rect): string {
  const r = toFrame(rect, page.rotation);
  const boxes = page.widgets.map((w) => w.rect).filter(buttonSized);
  for (const p of leftOnLine(page, r)) {
    const afterBox = boxes.some((b) => onLine(p, b) && b[2] <= p.x0 + 0.5 * p.size && p.x0 - b[2] <= 3 * p.size);
    if (!afterBox) return /\p{L}/u.test(p.text) ? cleanCaption(p.text) : '';
  }
  return '';
}

/** The signature caption left of a date field on its line, past the date's own caption; '' if none. */
export function signatureBefore(page: LabelPage, rect: Rect): string {
  const r = toFrame(rect, page.rotation);
  const near = leftOnLine(page, r).slice(0, 3);
  const signed = near.find((p) => SIGNATURE.test(p.text));
  return signed ? cleanCaption(signed.text) : '';
}

/**
 * The sentence a writing line with no caption of its own completes: the nearest line of text just above
 * it, over its width, ending with a preposition ("(“Buyer”) with a mailing address of"); '' if none.
 */
export function sentenceAbove(page: LabelPage, rect: Rect): string {
  const r = toFrame(rect, page.rotation);
  const above = page.phrases
    .filter((p) => p.bottom >= r[3] - 0.4 * p.size && p.bottom - r[3] < 2.5 * p.size + 4 && p.x0 >= r[0] - p.size)
    .filter((p) => p.x1 <= r[2] + p.size)
    .sort((a, b) => a.bottom - b.bottom || b.x1 - a.x1);
  const nearest = above[0];
  if (!nearest) return '';
  const last = above.filter((p) => Math.abs(p.bottom - nearest.bottom) < 0.5 * p.size).sort((a, b) => b.x1 - a.x1)[0];
  const text = cleanCaption(last.text);
  return RUNS_ON.test(text) ? text : '';
}
