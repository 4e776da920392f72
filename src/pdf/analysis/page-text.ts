// The printed text of a form's pages, as runs with positions, read by pdf.js (a maintained text
// extractor: fonts, encodings, ToUnicode). Only geometry leaves this file: each run in its page's
// reading frame, so that the caption finder can think "left of" and "above" on any page rotation.
import { loadPdfjs } from './pdfjs-loader.js';
import type { Rect } from '../types.js';

/** One run of text as drawn (a string shown in one go), in the page's reading frame (points). */
export interface TextRun {
  text: string;
  x0: number;
  x1: number;
  /** baseline */
  y: number;
  /** font height: the unit for every gap and tolerance */
  size: number;
}

/** A page's text turned so that most of it reads left to right, bottom to top (see toFrame). */
export interface PageText {
  /** the angle (0, 90, 180, 270) most of the text runs at in user space */
  rotation: number;
  runs: TextRun[];
}

export interface PageTextBudget {
  /** performance.now() after which no more text is read */
  deadline: number;
  /** text items read in all, across pages */
  maxItems: number;
  /** pages left unread: a stream of theirs could not be decoded within bounds, and pdf.js's decoders have none */
  skipPages?: ReadonlySet<number>;
}

/** A user-space point turned by -rotation, so text at `rotation` runs along +x. */
function turn(x: number, y: number, rotation: number): [number, number] {
  switch (rotation) {
    case 90:
      return [y, -x];
    case 180:
      return [-x, -y];
    case 270:
      return [-y, x];
    default:
      return [x, y];
  }
}

/** A user-space rectangle in a page's reading frame. */
export function toFrame(rect: Rect, rotation: number): Rect {
  const [ax, ay] = turn(rect[0], rect[1], rotation);
  const [bx, by] = turn(rect[2], rect[3], rotation);
  return [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
}

/** A rectangle of a page's reading frame back in user space (the inverse of toFrame). */
export function fromFrame(rect: Rect, rotation: number): Rect {
  return toFrame(rect, (360 - rotation) % 360);
}

export interface RawItem {
  str: string;
  transform: number[];
  width: number;
}

const isItem = (it: unknown): it is RawItem =>
  typeof (it as RawItem).str === 'string' && Array.isArray((it as RawItem).transform);

/** Text direction of an item, snapped to a multiple of 90 degrees; undefined when skewed. */
function itemRotation(t: number[]): number | undefined {
  const deg = (Math.atan2(t[1], t[0]) * 180) / Math.PI;
  const snapped = (Math.round(deg / 90) * 90 + 360) % 360;
  const off = Math.abs(((deg - snapped + 540) % 360) - 180);
  return off < 5 ? snapped : undefined;
}

/** The runs of one page's items: only those at the page's main angle (margins often carry turned text). */
export function pageRuns(items: RawItem[]): PageText {
  const weight = new Map<number, number>();
  for (const it of items) {
    const r = itemRotation(it.transform);
    if (r !== undefined && it.str.trim()) weight.set(r, (weight.get(r) ?? 0) + it.str.length);
  }
  let rotation = 0;
  for (const [r, w] of weight) if (w > (weight.get(rotation) ?? 0)) rotation = r;
  const runs: TextRun[] = [];
  for (const it of items) {
    const text = it.str.replace(/\s+/g, ' ');
    // blanks to write on ("______") and leader dots are not words; the field sits on them
    if (!text.trim() || LEADERS.test(text) || itemRotation(it.transform) !== rotation) continue;
    const [a, b, c, d, e, f] = it.transform;
    const size = Math.hypot(c, d) || Math.hypot(a, b);
    if (!(size > 0) || !Number.isFinite(e + f + it.width)) continue;
    const [x, y] = turn(e, f, rotation);
    runs.push(...withoutBoxes({ text, x0: x, x1: x + Math.abs(it.width), y, size }));
  }
  return { rotation, runs };
}

/** A run of only underscores, dots or dashes: a line to write on, or a leader. */
const LEADERS = /^[\s_.…·-]{3,}$/u;

/** Box characters some producers print under check boxes ("☐ oui ☐ non"): not words, and a widget's place. */
const BOX = /[\u2610-\u2612\u25a0-\u25a1\u25a2\u25fb-\u25fe\u274f-\u2752]/u;

/** The run cut at box characters, each piece placed by its share of the characters (widths are per run). */
function withoutBoxes(run: TextRun): TextRun[] {
  if (!BOX.test(run.text)) return [run];
  const chars = Array.from(run.text);
  const step = (run.x1 - run.x0) / chars.length;
  const out: TextRun[] = [];
  let start = 0;
  for (let i = 0; i <= chars.length; i++) {
    if (i < chars.length && !BOX.test(chars[i])) continue;
    const piece = chars.slice(start, i).join('');
    const lead = piece.length - piece.trimStart().length;
    const text = piece.trim();
    if (text)
      out.push({ ...run, text, x0: run.x0 + (start + lead) * step, x1: run.x0 + (start + lead + text.length) * step });
    start = i + 1;
  }
  return out;
}

type PdfjsDocument = Awaited<ReturnType<typeof import('pdfjs-dist/legacy/build/pdf.mjs').getDocument>['promise']>;

async function readPages(doc: PdfjsDocument, pages: number[], budget: PageTextBudget) {
  const out = new Map<number, PageText>();
  let read = 0;
  for (const n of pages) {
    if (n < 1 || n > doc.numPages || performance.now() > budget.deadline) break;
    if (budget.skipPages?.has(n)) continue;
    const page = await doc.getPage(n);
    // whole pages only: cancelling pdf.js's text stream midway makes it throw outside any promise
    const { items } = await page.getTextContent();
    page.cleanup();
    read += items.length;
    // past the item budget, this page and the rest are left out rather than read in part
    if (read > budget.maxItems) break;
    out.set(n, pageRuns((items as unknown[]).filter(isItem)));
  }
  return out;
}

/**
 * The text of the given 1-based pages, within the budget; pages it could not read (budget spent,
 * damaged content, a file pdf.js refuses) are missing from the answer. Never throws.
 */
export async function readPageText(
  bytes: Uint8Array,
  pages: number[],
  budget: PageTextBudget,
): Promise<Map<number, PageText>> {
  let task: ReturnType<typeof import('pdfjs-dist/legacy/build/pdf.mjs').getDocument> | undefined;
  let timer: NodeJS.Timeout | undefined;
  // pdf.js yields between chunks of work, so a timer can stop a read that the checks in readPages miss
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('text budget spent')), Math.max(0, budget.deadline - performance.now()));
  });
  const work = async () => {
    const { getDocument } = await loadPdfjs();
    // pdf.js takes ownership of (detaches) the buffer it is given: pass a copy.
    task = getDocument({
      data: new Uint8Array(bytes),
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      isOffscreenCanvasSupported: false,
      stopAtErrors: false,
    });
    return readPages(await task.promise, pages, budget);
  };
  try {
    return await Promise.race([work(), late]);
  } catch {
    return new Map();
  } finally {
    clearTimeout(timer);
    await task?.destroy().catch(() => undefined);
  }
}
