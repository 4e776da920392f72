// The caption a person reads for a widget, found in the page's text by geometry alone: left of it on
// the same line or on the lines just above it (a text field), right of it (a check box or radio
// button). Text that another widget stands between belongs to that widget, except across a row of
// cells (comb digits, one field per cell) or down a table column, where the row's or column's caption
// is everybody's.
import { fromFrame, toFrame, type PageText } from './page-text.js';
import { toPhrases, type Phrase } from './text-phrases.js';
import type { Rect } from '../types.js';

/** A widget as the finder sees it: `owner` tells the widgets of one field apart from the others. */
export interface LabelWidget {
  owner: number;
  rect: Rect;
}

/** The page prepared once: phrases and every widget, in its reading frame. */
export interface LabelPage {
  phrases: Phrase[];
  widgets: LabelWidget[];
  rotation: number;
}

export function labelPage(text: PageText, widgets: LabelWidget[]): LabelPage {
  return {
    phrases: toPhrases(text.runs),
    widgets: widgets.map((w) => ({ owner: w.owner, rect: toFrame(w.rect, text.rotation) })),
    rotation: text.rotation,
  };
}

/** Text left of a field longer than this is more likely a paragraph than its caption. */
const LONG_LEFT_CHARS = 80;

/** Longest page caption kept (a caption is a line or three, not a paragraph of instructions). */
const MAX_CAPTION_CHARS = 300;

/** Leaders (". . . .", "____"), and the colon, asterisk or bullet a caption ends or starts with. */
export function cleanCaption(text: string): string {
  const out = text
    .replace(/[\p{Co}\p{Cc}\uFFFD]/gu, ' ') // symbol-font glyphs with no Unicode meaning (check marks, bullets)
    .replace(/(?:\s?[.·…_]){3,}/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s•▶►■□❑☐*:–-]+/u, '')
    .replace(/[\s:*•▶►]+$/u, '')
    .trim();
  return out.length > MAX_CAPTION_CHARS ? `${out.slice(0, MAX_CAPTION_CHARS)}…` : out;
}

/**
 * Too little to be a caption by itself: a line number ("1a", "12."), a currency sign, a stray mark (©
 * is the arrow of a symbol font read without its map, "here ©").
 */
function isWeak(text: string): boolean {
  const t = cleanCaption(text);
  return t === '' || /^(?:\(?[0-9]{1,3}[a-z]?[.)]?|[a-z][.)]|[$€£%#()©])$/iu.test(t);
}

/**
 * A table's arithmetic beside a text box ("+", "=", "C =", a bare line letter "A"): the cell's caption is
 * its row's or column's words. (A lone capital beside a check box is an answer, "M" or "F": not here.)
 */
function isTableMark(text: string): boolean {
  return /^(?:[A-Z]|[A-Z]?\s*[+=−×÷]\s*[A-Z]?)$/u.test(cleanCaption(text));
}

const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.min(a1, b1) - Math.max(a0, b0);

/** The phrase sits on the widget's line: its glyphs overlap the widget's height by half or more. */
function onLine(p: Phrase, r: Rect): boolean {
  return overlap(p.bottom, p.top, r[1], r[3]) >= 0.5 * Math.min(p.top - p.bottom, r[3] - r[1]);
}

/** Another field's widget lies in the horizontal gap between x0 and x1 on the line of `r`. */
function blockedAcross(page: LabelPage, owner: number, r: Rect, x0: number, x1: number): boolean {
  return page.widgets.some(
    (w) =>
      w.owner !== owner &&
      overlap(w.rect[1], w.rect[3], r[1], r[3]) > 0.3 * (r[3] - r[1]) &&
      overlap(w.rect[0], w.rect[2], x0, x1) > 1,
  );
}

const isButtonSized = (r: Rect) => r[2] - r[0] < 2 * (r[3] - r[1]) && r[2] - r[0] < 30;

/** A button-sized widget sits just left of the phrase on its line: the phrase is its caption. */
function afterButton(page: LabelPage, p: Phrase): boolean {
  return page.widgets.some(
    (w) =>
      isButtonSized(w.rect) && onLine(p, w.rect) && w.rect[2] <= p.x0 + 0.5 * p.size && p.x0 - w.rect[2] <= 3 * p.size,
  );
}

/** The phrase is another field's own caption: a widget of another field sits beside it on its line. */
function ownedElsewhere(page: LabelPage, owner: number, p: Phrase): boolean {
  const reach = Math.max(4 * p.size, 40);
  return page.widgets.some(
    (w) =>
      w.owner !== owner &&
      onLine(p, w.rect) &&
      ((w.rect[0] >= p.x1 - 0.5 * p.size && w.rect[0] - p.x1 <= reach) ||
        // a box left of words is a check box and they are its caption
        (isButtonSized(w.rect) && w.rect[2] <= p.x0 + 0.5 * p.size && p.x0 - w.rect[2] <= 3 * p.size)),
  );
}

/** The line just above `p` that its words continue (p starts in lower case), when it is nobody else's. */
function wrappedFrom(page: LabelPage, owner: number, p: Phrase): Phrase | undefined {
  // lower case goes on a sentence, and so do a number or a quote ("20 feet”; “Worker was...") and
  // examples ("Examples: ..."); a parenthesis explains the line above it
  const goesOn = /^[\p{Ll}(“"‘]|^\d+\s\p{Ll}/u.test(p.text) || /^(?:examples?|exemples?|beispiele?)\s?:/iu.test(p.text);
  if (!goesOn) return undefined;
  return page.phrases.find(
    (q) =>
      q !== p &&
      (Math.abs(q.x0 - p.x0) < 1.5 * p.size || hangsFrom(q, p)) &&
      q.bottom > p.top - 0.6 * p.size &&
      q.bottom - p.top < 1.0 * p.size &&
      !ownedElsewhere(page, owner, q),
  );
}

/** A numbered line whose next lines are indented under its words ("15) What happened? ... / 20 feet"). */
const hangsFrom = (q: Phrase, p: Phrase) =>
  q.x0 < p.x0 && p.x0 - q.x0 < 3 * p.size && /^\d{1,3}[a-z]?[.)]/u.test(q.text);

/**
 * The phrase is one line of a paragraph whose next (or previous) line sits beside another field: a note
 * running down the rows of a table ("If more than four / dependents, see / instructions"), which is no
 * single row's caption.
 */
function spansRows(page: LabelPage, owner: number, p: Phrase): boolean {
  const lower = (t: string) => /^\p{Ll}/u.test(t);
  return page.phrases.some(
    (q) =>
      q !== p &&
      q.text !== p.text && // the same words on every row are the rows' captions ("du ... au ...")
      Math.abs(q.x0 - p.x0) < 1.5 * p.size &&
      ((lower(q.text) && q.top <= p.bottom + 0.6 * p.size && p.bottom - q.top < 1.0 * p.size) ||
        (lower(p.text) && q.bottom >= p.top - 0.6 * p.size && q.bottom - p.top < 1.0 * p.size)) &&
      ownedElsewhere(page, owner, q),
  );
}

/** Another field's widget lies between the heights y0 and y1, across [x0, x1]. */
function blockedUp(page: LabelPage, owner: number, x0: number, x1: number, y0: number, y1: number): boolean {
  return page.widgets.some(
    (w) => w.owner !== owner && overlap(w.rect[1], w.rect[3], y0, y1) > 1 && overlap(w.rect[0], w.rect[2], x0, x1) > 1,
  );
}

/** Text between x0 and x1 on the line of `r`. */
const between = (page: LabelPage, r: Rect, x0: number, x1: number) =>
  page.phrases.filter((p) => onLine(p, r) && overlap(p.x0, p.x1, x0, x1) > 0);

/**
 * Where a row of cells starts: narrow widgets of other fields on the same row, one after the other
 * with at most a separator between them ("/" in a date), all share the caption left of the first one
 * (a date or a number written one part per field).
 */
function rowStart(page: LabelPage, r: Rect): Rect {
  let cur = r;
  const h = r[3] - r[1];
  for (let guard = 0; guard < 64; guard++) {
    const prev = page.widgets
      .filter(
        (w) =>
          Math.abs(w.rect[1] - cur[1]) < 0.25 * h &&
          Math.abs(w.rect[3] - cur[3]) < 0.25 * h &&
          w.rect[2] <= cur[0] + 1 &&
          cur[0] - w.rect[2] < 2.5 * h,
      )
      .sort((a, b) => b.rect[2] - a.rect[2])[0];
    if (!prev) break;
    const gap = between(page, cur, prev.rect[2], cur[0]);
    const separated = gap.length > 0 && gap.every((p) => /^[/.:,–-]+$/.test(p.text.trim()));
    const touching = gap.length === 0 && cur[0] - prev.rect[2] < 0.6 * h && prev.rect[2] - prev.rect[0] < 6 * h;
    if (!touching && !separated) break;
    cur = prev.rect;
  }
  return cur;
}

/**
 * Where a row of buttons starts ("Sexe : [ ] M [ ] F"): button-sized widgets on the same line with
 * only short option words between them. The question is read left of (or above) the first.
 */
function buttonRowStart(page: LabelPage, r: Rect): Rect {
  let cur = r;
  const h = r[3] - r[1];
  for (let guard = 0; guard < 32; guard++) {
    const prev = page.widgets
      .filter(
        (w) =>
          overlap(w.rect[1], w.rect[3], cur[1], cur[3]) > 0.5 * h &&
          w.rect[2] <= cur[0] + 1 &&
          cur[0] - w.rect[2] < 12 * h &&
          w.rect[2] - w.rect[0] < 2 * h,
      )
      .sort((a, b) => b.rect[2] - a.rect[2])[0];
    if (!prev || between(page, cur, prev.rect[2], cur[0]).some((p) => !isOptionWord(p.text))) break;
    cur = prev.rect;
  }
  return cur;
}

/** Words that answer a question rather than ask one: the question goes before them in a label. */
function isOptionWord(text: string): boolean {
  const t = cleanCaption(text);
  return t.length <= 3 || /^(?:oui|non|yes|no|ja|nein|si|sí)$/iu.test(t);
}

/** Where a table column starts: widgets of the same width stacked right above, up to the header row. */
function columnStart(page: LabelPage, r: Rect): Rect {
  let cur = r;
  for (let guard = 0; guard < 256; guard++) {
    const w = cur[2] - cur[0];
    const above = page.widgets.find(
      (o) =>
        Math.abs(o.rect[0] - cur[0]) < Math.max(2, 0.05 * w) &&
        Math.abs(o.rect[2] - cur[2]) < Math.max(2, 0.05 * w) &&
        o.rect[1] >= cur[3] - 1 &&
        o.rect[1] - cur[3] < 2 * (cur[3] - cur[1]) + 4,
    );
    if (!above) break;
    cur = above.rect;
  }
  return cur;
}

/** The caption left of `r` on its line, reaching past a weak line number to the words before it. */
function leftOf(page: LabelPage, owner: number, r: Rect): Phrase[] | undefined {
  const cands = page.phrases
    .filter((p) => onLine(p, r) && p.x0 < r[0] && p.x1 <= r[0] + 0.5 * p.size)
    .sort((a, b) => b.x1 - a.x1);
  const first = cands[0];
  if (!first || blockedAcross(page, owner, r, first.x1 - 1, r[0])) return undefined;
  const out = [first];
  // "1a Total amount . . . . 1a [field]": the number beside the field is the line's, its words are further left
  for (const p of cands.slice(1)) {
    const head = out[0];
    if (!isWeak(head.text) && !(out.length === 1 && /^[.\s·…_]+$/.test(head.text))) break;
    // leaders are left out of the text, so the words may be far from the number: only a widget stops the reach
    if (blockedAcross(page, owner, r, p.x1 - 1, head.x0)) break;
    out.unshift(p);
  }
  return withWrapped(page, owner, out);
}

/** The caption right of `r` on its line (a check box's or radio button's words). */
function rightOf(page: LabelPage, owner: number, r: Rect): Phrase | undefined {
  const p = page.phrases
    .filter((q) => onLine(q, r) && q.x1 > r[2] && q.x0 >= r[2] - 0.3 * q.size)
    .sort((a, b) => a.x0 - b.x0)[0];
  if (!p || p.x0 - r[2] > Math.max(3 * p.size, 24)) return undefined;
  if (blockedAcross(page, owner, r, r[2], p.x0 + 1)) return undefined;
  // words that wrap onto the next line ("Individual/sole proprietor or / single-member LLC")
  const next = page.phrases.find(
    (q) =>
      /^\p{Ll}/u.test(q.text) &&
      Math.abs(q.x0 - p.x0) < p.size &&
      q.top < p.bottom + 0.6 * p.size &&
      p.bottom - q.top < 1.0 * p.size &&
      !ownedElsewhere(page, owner, q) &&
      !afterButton(page, q),
  );
  return next ? { ...p, text: `${p.text} ${next.text}` } : p;
}

/** The lines just above `r` that start over it (a caption on top of its box), nearest line last. */
function above(page: LabelPage, owner: number, r: Rect): Phrase[] | undefined {
  const over = (p: Phrase) => p.x0 >= r[0] - 1.5 * p.size && p.x0 < r[2] && overlap(p.x0, p.x1, r[0], r[2]) > 0;
  const near = page.phrases.filter(
    (p) => over(p) && p.bottom >= r[3] - 0.4 * p.size && p.bottom - r[3] < 2.5 * p.size + 4,
  );
  const lowest = near.reduce<Phrase | undefined>((a, p) => (!a || p.bottom < a.bottom ? p : a), undefined);
  if (!lowest) return undefined;
  // that line read from the left ("Fax Number:      OR"): a line number before it goes with its words
  const line = near.filter((p) => Math.abs(p.bottom - lowest.bottom) <= 0.3 * p.size).sort((a, b) => a.x0 - b.x0);
  const nearest = line[0];
  if (blockedUp(page, owner, r[0], r[2], r[3], nearest.bottom)) return undefined;
  if (ownedElsewhere(page, owner, nearest)) return undefined;
  const next = line[1];
  if (isWeak(nearest.text) && next && next.x0 - nearest.x1 <= 3 * next.size && !ownedElsewhere(page, owner, next))
    return [nearest, next];
  return withWrapped(page, owner, [nearest]);
}

/** The caption's earlier lines, when its first line continues them (three lines in all at most). */
function withWrapped(page: LabelPage, owner: number, lines: Phrase[]): Phrase[] {
  for (let i = 0; i < 2; i++) {
    const prev = wrappedFrom(page, owner, lines[0]);
    if (!prev) break;
    lines.unshift(prev);
  }
  return lines;
}

const join = (ps: Phrase[] | undefined) => (ps ? cleanCaption(ps.map((p) => p.text).join(' ')) : '');

/** A text (or choice, or signature) field's caption: left on its line when near, else above its box. */
export function textCaption(page: LabelPage, owner: number, rect: Rect): string {
  const r = toFrame(rect, page.rotation);
  const start = rowStart(page, r);
  const left = leftOf(page, owner, start);
  const leftGap = left ? start[0] - left[left.length - 1].x1 : Number.POSITIVE_INFINITY;
  const size = left?.[0].size ?? 10;
  const near = join(left);
  // a long line beside a box is a paragraph of instructions, not its caption, when the box has one on top
  const top = () => join(above(page, owner, start)) || join(above(page, owner, columnStart(page, r)));
  const rowNote = left !== undefined && spansRows(page, owner, left[left.length - 1]);
  const weak = isTableMark(near);
  if (near && !weak && !rowNote && leftGap <= Math.max(4 * size, 40) && near.length <= LONG_LEFT_CHARS) return near;
  const found = top() || (rowNote || weak ? '' : near);
  if (found) return found;
  // the second line of a box (an address on two lines) shares the first line's caption
  const head = columnStart(page, r);
  if (head !== r) return textCaption(page, owner, fromFrame(head, page.rotation));
  return join(below(page, owner, r));
}

/** The line right under `r` (a signature or date line captioned beneath), when nothing else is near. */
function below(page: LabelPage, owner: number, r: Rect): Phrase[] | undefined {
  const p = page.phrases
    .filter(
      (q) =>
        q.top <= r[1] + 0.3 * q.size && r[1] - q.top < 1.2 * q.size && q.x0 >= r[0] - q.size && q.x1 <= r[2] + q.size,
    )
    .sort((a, b) => b.top - a.top)[0];
  return p && !ownedElsewhere(page, owner, p) ? [p] : undefined;
}

/**
 * A check box's or radio button's own words: right of it, else left of it, else above it. A bare
 * answer ("Oui", "M") is prefixed with the question its row of buttons answers.
 */
export function buttonCaption(page: LabelPage, owner: number, rect: Rect): string {
  const r = toFrame(rect, page.rotation);
  const words = ownWords(page, owner, r);
  if (!words || !isOptionWord(words)) return words;
  const start = buttonRowStart(page, r);
  // words with a box just before them are that box's answer ("[ ] Java [ ] C#"), not a question
  const asks = (ps: Phrase[] | undefined) => ps?.filter((p) => !afterButton(page, p));
  const question = join(asks(leftOf(page, owner, start))) || join(asks(above(page, owner, start)));
  return question && question !== words ? `${question}: ${words}` : words;
}

/** A button's own words alone (a radio option's label: the group's question is the field's label). */
export function buttonWords(page: LabelPage, owner: number, rect: Rect): string {
  return ownWords(page, owner, toFrame(rect, page.rotation));
}

function ownWords(page: LabelPage, owner: number, r: Rect): string {
  const right = rightOf(page, owner, r);
  const left = leftOf(page, owner, r);
  const leftGap = left ? r[0] - left[left.length - 1].x1 : Number.POSITIVE_INFINITY;
  const near = left && leftGap <= Math.max(3 * left[0].size, 24) ? join(left) : '';
  // words nearer on the left ("LiMA [ ]  OPAS 7 [ ]") are the box's; otherwise the right is read first
  if (right && !isWeak(right.text) && !(near && 1.5 * leftGap < right.x0 - r[2])) return cleanCaption(right.text);
  return near || join(above(page, owner, r)) || (right ? cleanCaption(right.text) : '');
}

/**
 * The question a group of buttons answers (a radio group, a multi-state check box): the words left
 * of its first button or above it that are not one of its buttons' own words.
 */
export function groupCaption(page: LabelPage, owner: number, rects: Rect[], optionWords: string[]): string {
  const first = rects.map((r) => toFrame(r, page.rotation)).sort((a, b) => b[3] - a[3] || a[0] - b[0])[0];
  const taken = new Set(optionWords);
  const left = leftOf(page, owner, first)?.filter((p) => !taken.has(cleanCaption(p.text)));
  if (left?.length) return join(left);
  return join(above(page, owner, first)?.filter((p) => !taken.has(cleanCaption(p.text))));
}
