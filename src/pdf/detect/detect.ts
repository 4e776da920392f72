// detectFields(): the fields a flat PDF asks for, page by page, from its vector drawing and its text,
// both read by pdf.js. Bounded: a page budget, a time budget, caps on lines, boxes and candidates per
// page; whatever a cap leaves out is named in `warnings`. Pages that are pictures (scans) with no
// text and no lines are listed in `rasterPages`: detection needs drawn lines or printed text.
import { pageRuns, fromFrame, type PageText, type RawItem } from '../analysis/page-text.js';
import { loadPdfjs, openPdfjs } from '../analysis/pdfjs-loader.js';
import { toPhrases } from '../analysis/text-phrases.js';
import { PdfEngineError, type Rect } from '../types.js';
import { detectionKeys, type KeyContext } from './detection-keys.js';
import { findFields, type TextBox } from './find-fields.js';
import { readInk, type OpCodes } from './ink.js';
import { labelDetections, type PageDetection } from './label-detections.js';
import { findTextMarks, withoutBlanks } from './text-marks.js';

export type { DetectedType } from './label-detections.js';

export interface DetectLimits {
  /** input size, checked before parsing */
  maxBytes: number;
  /** pages looked at; later pages are left out with a warning */
  maxPages: number;
  /** wall-clock budget for the whole detection; pages not reached in time are left out with a warning */
  maxMs: number;
  /** straight lines read per page (a form page has a few hundred to a few thousand) */
  maxSegmentsPerPage: number;
  /** closed boxes looked at per page */
  maxCellsPerPage: number;
  /** candidates kept per page */
  maxCandidatesPerPage: number;
  /** text items read per page; a page with more is read without its text (no labels) */
  maxTextItemsPerPage: number;
}

export const DEFAULT_DETECT_LIMITS: Readonly<DetectLimits> = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  maxPages: 200,
  maxMs: 20_000,
  maxSegmentsPerPage: 20_000,
  maxCellsPerPage: 4_000,
  maxCandidatesPerPage: 400,
  maxTextItemsPerPage: 20_000,
});

/** A detected field: what its page found (`PageDetection`), with its page and its key. */
export interface Detection extends PageDetection {
  /** a suggested key: lower snake_case from the label, unique in the form */
  key: string;
  /** 1-based */
  page: number;
}

export interface DetectResult {
  pageCount: number;
  detections: Detection[];
  /** pages that are only pictures: nothing to detect without OCR */
  rasterPages: number[];
  warnings: string[];
}

/** What the form already holds, for detect-fields on a template: boxes to skip, keys not to reuse. */
export interface ExistingForm {
  widgets: { page: number; rect: Rect }[];
  keys: string[];
}

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfjsPage = Awaited<ReturnType<Awaited<ReturnType<Pdfjs['getDocument']>['promise']>['getPage']>>;

const intersection = (a: Rect, b: Rect) =>
  Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
const area = (r: Rect) => (r[2] - r[0]) * (r[3] - r[1]);

const isItem = (it: unknown): it is RawItem =>
  typeof (it as RawItem).str === 'string' && Array.isArray((it as RawItem).transform);

/** Phrases back in user space, for the geometry (which works there). */
function textBoxes(text: PageText): TextBox[] {
  return toPhrases(text.runs).map((p) => ({
    text: p.text,
    rect: fromFrame([p.x0, p.bottom, p.x1, p.top], text.rotation),
  }));
}

/** The runs of the phrases (words a little apart stay apart), in user space. */
function runBoxes(text: PageText): TextBox[] {
  return text.runs
    .filter((r) => r.text.trim() !== '')
    .map((r) => ({
      text: r.text.trim(),
      rect: fromFrame([r.x0, r.y - 0.25 * r.size, r.x1, r.y + 0.8 * r.size], text.rotation),
    }));
}

/** Runs of dots or dashes (leaders), which the caption finder leaves out of the text. */
function leaderBoxes(items: RawItem[]): TextBox[] {
  return items
    .filter((it) => /^[\s.…·-]+$/u.test(it.str) && it.str.trim() !== '')
    .map((it) => {
      const [, , , d, e, f] = it.transform;
      return { text: it.str.trim(), rect: [e, f - 0.2 * d, e + Math.abs(it.width), f + 0.8 * d] as Rect };
    });
}

interface PageOutcome {
  detections: { d: PageDetection; context?: KeyContext }[];
  raster: boolean;
  warnings: string[];
}

async function detectPage(
  page: PdfjsPage,
  n: number,
  pdfjs: Pdfjs,
  lim: DetectLimits,
  existing: Rect[],
): Promise<PageOutcome> {
  const warnings: string[] = [];
  const view = page.view as Rect;
  const list = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
  const ink = readInk(list, pdfjs.OPS as unknown as OpCodes, lim.maxSegmentsPerPage);
  if (ink.capped) warnings.push(`page ${n}: more than ${lim.maxSegmentsPerPage} lines drawn; the rest was not read`);
  const content = await page.getTextContent();
  const items = (content.items as unknown[]).filter(isItem);
  let text: PageText | undefined;
  let rawItems: RawItem[] = [];
  if (items.length > lim.maxTextItemsPerPage)
    warnings.push(`page ${n}: more than ${lim.maxTextItemsPerPage} pieces of text; read without its text`);
  else {
    text = pageRuns(withoutBlanks(items));
    rawItems = items;
  }
  const printed = items.reduce((s, it) => s + it.str.trim().length, 0);
  const pageArea = area(view);
  const raster = ink.imageArea >= 0.5 * pageArea && printed < 10 && ink.horizontal.length + ink.vertical.length < 8;
  if (raster) return { detections: [], raster, warnings };

  // leader dots are no caption, but a box they run through is not empty either
  const texts = text ? [...textBoxes(text), ...leaderBoxes(rawItems)] : [];
  const marks = findTextMarks(rawItems, lim.maxCandidatesPerPage);
  const found = findFields(
    ink,
    texts,
    marks,
    view,
    { maxCells: lim.maxCellsPerPage, maxCandidates: lim.maxCandidatesPerPage },
    text ? runBoxes(text) : [],
  );
  if (found.capped)
    warnings.push(`page ${n}: more than ${lim.maxCandidatesPerPage} candidate fields; the rest left out`);
  // what the form already has there is not detected again
  const fresh = found.candidates.filter(
    (c) => !existing.some((w) => intersection(w, c.rect) > 0.3 * Math.min(area(w), area(c.rect))),
  );
  const inView = (r: Rect): Rect => [
    Math.max(r[0], view[0]),
    Math.max(r[1], view[1]),
    Math.min(r[2], view[2]),
    Math.min(r[3], view[3]),
  ];
  const visible = (r: Rect) => r[2] - r[0] >= 2 && r[3] - r[1] >= 2;
  // a field must lie inside the visible page (the editor refuses it otherwise)
  const detections = labelDetections(fresh, text, existing)
    .map((d) => ({ ...d, rect: inView(d.rect), ...(d.widgets ? { widgets: d.widgets.map(inView) } : {}) }))
    .filter((d) => visible(d.rect) && (d.widgets ?? []).every(visible))
    // reading order: top to bottom, then left to right (the order keys and the review list follow)
    .sort((a, b) => (Math.abs(b.rect[3] - a.rect[3]) > 3 ? b.rect[3] - a.rect[3] : a.rect[0] - b.rect[0]))
    // the key's context stays inside: it is no part of a detection
    .map(({ context, ...d }) => ({ d, context }));
  return { detections, raster, warnings };
}

/** Limits with defaults filled in; nonsense values replaced by the defaults. */
function resolveDetectLimits(partial?: Partial<DetectLimits>): DetectLimits {
  const out: DetectLimits = { ...DEFAULT_DETECT_LIMITS };
  for (const key of Object.keys(out) as (keyof DetectLimits)[]) {
    const v = partial?.[key];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[key] = Math.floor(v);
  }
  return out;
}

/**
 * The fields detected in `bytes`. Throws PdfEngineError INVALID_PDF when pdf.js cannot open the file,
 * PDF_LIMIT when it is over the size limit. `existing` (a form that has fields) is skipped.
 */
export async function detectFields(
  bytes: Uint8Array,
  existing: ExistingForm = { widgets: [], keys: [] },
  limits?: Partial<DetectLimits>,
): Promise<DetectResult> {
  const lim = resolveDetectLimits(limits);
  if (bytes.byteLength > lim.maxBytes)
    throw new PdfEngineError('PDF_LIMIT', `the PDF is larger than ${lim.maxBytes} bytes`);
  const deadline = performance.now() + lim.maxMs;
  // loaded through the loader, which puts back the built-ins pdf.js's polyfills replace
  const pdfjs = await loadPdfjs();
  const task = await openPdfjs(bytes, { cMaps: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const doc = await task.promise.catch((err: unknown) => {
      const msg = err instanceof Error ? err.message : String(err);
      throw new PdfEngineError('INVALID_PDF', `the file could not be read as a PDF (${msg.slice(0, 200)})`);
    });
    const warnings: string[] = [];
    const found: { page: number; d: PageDetection; context?: KeyContext }[] = [];
    const rasterPages: number[] = [];
    const pages = Math.min(doc.numPages, lim.maxPages);
    if (doc.numPages > lim.maxPages)
      warnings.push(`the PDF has ${doc.numPages} pages; fields were detected on the first ${lim.maxPages} only`);
    // pdf.js yields between chunks of work: the timer ends a page that the loop's own check cannot
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), lim.maxMs);
    });
    for (let n = 1; n <= pages; n++) {
      if (performance.now() > deadline) {
        warnings.push(`the time budget ran out: pages ${n} to ${pages} were not looked at`);
        break;
      }
      const own = existing.widgets.filter((w) => w.page === n).map((w) => w.rect);
      const work = doc.getPage(n).then(async (page) => {
        try {
          return await detectPage(page, n, pdfjs, lim, own);
        } finally {
          page.cleanup();
        }
      });
      const outcome = await Promise.race([work, late]);
      if (outcome === 'late') {
        work.catch(() => undefined);
        warnings.push(`the time budget ran out: pages ${n} to ${pages} were not looked at`);
        break;
      }
      warnings.push(...outcome.warnings);
      if (outcome.raster) rasterPages.push(n);
      for (const { d, context } of outcome.detections) found.push({ page: n, d, context });
    }
    const keys = detectionKeys(
      found.map(({ page, d, context }) => ({ page, rect: d.rect, label: d.label, type: d.type, context })),
      existing.keys,
    );
    const detections = found.map(({ page, d }, i): Detection => ({ key: keys[i], page, ...d }));
    return { pageCount: doc.numPages, detections, rasterPages, warnings };
  } finally {
    clearTimeout(timer);
    await task.destroy().catch(() => undefined);
  }
}
