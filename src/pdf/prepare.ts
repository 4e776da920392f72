// Per-template preparation and fast renders on top of it.
//
// prepareTemplate() does once what does not depend on the data: load (and decrypt), drop /XFA and
// /NeedAppearances, redraw stale appearances, embed the standard fonts the fields use, and save the
// result once as a normalized BASE file (classic xref table, unencrypted). The base is parsed again
// and kept with its field index, so the objects in memory are exactly the objects of the base file.
//
// renderPrepared() writes the values into that cached document with the usual modules, tracks which
// objects it created or changed (change-tracker.ts), writes base + those objects as an incremental
// update (incremental-writer.ts), and restores the document for the next render. No parse, no full
// save. Renders of one prepared template run one at a time (a promise chain), since they mutate it.
import { StandardFonts, type PDFContext, type PDFDict, type PDFDocument, type PDFFont } from '@cantoo/pdf-lib';
import { textStyle } from './appearance-da.js';
import { ChangeTracker } from './change-tracker.js';
import { applyRequest, indexFields, redrawStale, type FieldIndex } from './fill-fields.js';
import type { FillContext } from './fill-context.js';
import { N, getDict } from './fill-objects.js';
import { collectFields } from './field-tree.js';
import { FontSet } from './fonts.js';
import { findStartXref, writeIncrement, type BaseFile } from './incremental-writer.js';
import { DEFAULT_LIMITS } from './limits.js';
import { loadPdf } from './load.js';
import { collectPages } from './pages.js';
import { PdfEngineError, type FillRequest, type FillResult, type TemplateAnalysis } from './types.js';
import { dropXfaAndNeedAppearances } from './xfa.js';

export interface PreparedTemplate {
  /** the normalized base file every render starts from */
  readonly base: BaseFile;
  /** rough memory held by this preparation (base bytes + parsed objects), for cache budgets */
  readonly approxBytes: number;
  /** length of the template it was prepared from (a cheap sanity check for cache keys) */
  readonly sourceLength: number;
  /** @internal */
  readonly state: PreparedState;
}

interface PreparedState {
  doc: PDFDocument;
  ctx: PDFContext;
  acroForm: PDFDict | undefined;
  index: FieldIndex;
  tracker: ChangeTracker;
  /** standard fonts already in the base file */
  fonts: ReadonlyMap<StandardFonts, PDFFont>;
  /** the tail of the render queue of this template */
  queue: Promise<unknown>;
}

/** Parsed objects take a few times the file's size in memory. */
const MEMORY_FACTOR = 4;

/** Loads the template and normalizes it in memory; returns its base file bytes and the fonts embedded. */
async function normalize(bytes: Uint8Array, analysis: TemplateAnalysis): Promise<{ base: Uint8Array; fonts: ReadonlyMap<StandardFonts, PDFFont> }> {
  const { doc, context: ctx, catalog } = await loadPdf(bytes);
  const pages = collectPages(ctx, catalog, DEFAULT_LIMITS);
  const acroForm = getDict(catalog, 'AcroForm');
  const fields = collectFields(ctx, acroForm, pages, DEFAULT_LIMITS);
  const fonts = new FontSet(doc);
  const fc: FillContext = { doc, ctx, acroForm, fonts, warnings: [] };
  const needAppearances = acroForm?.lookup(N('NeedAppearances'))?.toString() === 'true';
  await redrawStale(fc, fields, needAppearances);
  dropXfaAndNeedAppearances(catalog, acroForm);
  // The faces renders will draw with, embedded here once: text fields' /DA faces, ZapfDingbats for
  // generated check marks, Helvetica-Bold for watermarks.
  const writable = new Set(analysis.fields.filter((f) => f.detail.ft !== 'Btn').map((f) => f.pdfMeta.originalName));
  for (const f of fields) if (writable.has(f.fullName)) for (const w of f.widgets) textStyle(w, acroForm, fonts);
  fonts.standardFont(StandardFonts.ZapfDingbats);
  fonts.standardFont(StandardFonts.HelveticaBold);
  const base = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  return { base, fonts: fonts.embeddedStandardFonts() };
}

/** Everything data-independent, done once per template version. Throws PdfEngineError. */
export async function prepareTemplate(bytes: Uint8Array, analysis: TemplateAnalysis): Promise<PreparedTemplate> {
  const { base, fonts } = await normalize(bytes, analysis);
  const startXref = findStartXref(base);
  if (startXref === undefined) throw new PdfEngineError('RENDER_FAILED', 'the normalized template has no startxref');
  // No size/time limit here: the base is our own re-serialization of a template already accepted.
  const { doc, context: ctx, catalog } = await loadPdf(base, { maxBytes: Number.MAX_SAFE_INTEGER });
  const pages = collectPages(ctx, catalog, DEFAULT_LIMITS);
  const acroForm = getDict(catalog, 'AcroForm');
  const fields = collectFields(ctx, acroForm, pages, DEFAULT_LIMITS);
  for (const font of fonts.values()) {
    if (!ctx.lookup(font.ref)) throw new PdfEngineError('RENDER_FAILED', `font ${font.name} is missing from the normalized template`);
  }
  return {
    base: { bytes: base, startXref },
    approxBytes: base.length * MEMORY_FACTOR,
    sourceLength: bytes.length,
    state: {
      doc,
      ctx,
      acroForm,
      index: indexFields(catalog, pages, fields, analysis.fields),
      tracker: new ChangeTracker(ctx),
      fonts,
      queue: Promise.resolve(),
    },
  };
}

/** pdf-lib's lists of things to embed at save time (fonts, images); we embed them ourselves. */
interface Embeddables {
  fonts: { embed(): Promise<void> }[];
  images: { embed(): Promise<void> }[];
}

async function renderOnce(p: PreparedTemplate, request: FillRequest): Promise<FillResult> {
  const { doc, ctx, acroForm, index, tracker, fonts } = p.state;
  const lists = doc as unknown as Embeddables;
  const counts = { fonts: lists.fonts.length, images: lists.images.length };
  tracker.begin();
  try {
    const fc: FillContext = { doc, ctx, acroForm, fonts: new FontSet(doc, fonts), warnings: [] };
    const t0 = performance.now();
    await applyRequest(fc, index, request);
    const t1 = performance.now();
    // What doc.save() would flush: fonts (subsets of the fallback fonts) and images of this render.
    for (const e of [...lists.fonts.slice(counts.fonts), ...lists.images.slice(counts.images)]) await e.embed();
    const t2 = performance.now();
    const ch = tracker.changed();
    const bytes = writeIncrement(ctx, p.base, ch, tracker.baseMax);
    const t3 = performance.now();
    if (process.env.FC_TIMING) console.error(`apply ${(t1 - t0).toFixed(2)} embed ${(t2 - t1).toFixed(2)} write ${(t3 - t2).toFixed(2)} objs ${ch.length}`);
    return { bytes, warnings: fc.warnings };
  } finally {
    lists.fonts.length = counts.fonts;
    lists.images.length = counts.images;
    tracker.restore();
  }
}

/** One render on a prepared template: base bytes + an incremental update. Throws PdfEngineError. */
export function renderPrepared(prepared: PreparedTemplate, request: FillRequest): Promise<FillResult> {
  const run = prepared.state.queue.then(() => renderOnce(prepared, request));
  prepared.state.queue = run.catch(() => undefined);
  return run;
}
