// Per-template preparation and fast renders on top of it.
//
// prepareTemplate() does once what does not depend on the data: load (and decrypt), drop /XFA and
// /NeedAppearances, list every field in /AcroForm /Fields, redraw stale appearances (and broken
// checkbox marks), embed the standard fonts the fields use, and save the result once as a
// normalized BASE file (classic xref table, unencrypted). The base is parsed again
// and kept with its field index, so the objects in memory are exactly the objects of the base file.
//
// The parsed base is laid out once more, compactly (compact-layout.ts): a prefix of what every output
// carries unchanged, in object streams, and the bytes of every other object.
//
// renderPrepared() writes the values into that cached document with the usual modules, tracks which
// objects it created or changed (change-tracker.ts), writes the prefix + every object the output
// reaches outside it + a cross-reference stream (compact-writer.ts), and restores the document for
// the next render. No parse, no full save. Renders of one prepared template run one at a time (a
// promise chain), since they mutate it.
import { createHash } from 'node:crypto';
import { type PDFDict, StandardFonts, type PDFContext, type PDFDocument, type PDFFont } from '@cantoo/pdf-lib';
import { textStyle } from '../appearance/appearance-da.js';
import { ChangeTracker } from '../writer/change-tracker.js';
import { applyRequest, indexFields, redrawStale, type FieldIndex } from './fill-fields.js';
import type { FillContext } from './fill-context.js';
import { MAX_FIELD_DEPTH, N, getDict } from '../pdf-objects.js';
import { repairFieldList } from './field-list.js';
import { collectFields, formDicts } from '../field-tree.js';
import { FontSet } from '../fonts/fonts.js';
import { FontLibrary } from '../fonts/font-library.js';
import { FontSubsets } from '../fonts/unicode-font.js';
import { buildLayout, type CompactLayout } from '../writer/compact-layout.js';
import { prewrite, writeCompact, type Prewritten } from '../writer/compact-writer.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { loadPdf, type LoadedPdf } from '../load.js';
import { settleInMemory } from './settle.js';
import { collectPages, type PageNode } from '../pages.js';
import {
  PdfEngineError,
  type FillRequest,
  type FillResult,
  type RenderParts,
  type TemplateAnalysis,
} from '../types.js';
import { dropUsageRights } from '../sanitize/output-removals.js';
import { stripActiveContent } from '../sanitize/active-content.js';
import { dropEncryptionAndXrefStreams } from '../writer/plain-objects.js';
import { dropUnreachable } from '../writer/unreachable.js';
import { dropXfaAndNeedAppearances } from './xfa.js';
import { readFormScripts } from '../scripts/form-model.js';
import { planSessions, type SessionPlan } from '../scripts/session-plan.js';
import { ScriptSandbox } from '../scripts/sandbox.js';
import type { BalanceCache } from '../content-balance.js';

export interface PreparedTemplate {
  /** the compact layout every render is written on (its prefix starts every output) */
  readonly layout: CompactLayout;
  /** a hash of the prefix bytes (RenderParts.baseId) */
  readonly baseId: string;
  /** rough memory held by this preparation (base bytes + parsed objects), for cache budgets */
  readonly approxBytes: number;
  /** length of the template it was prepared from (a cheap sanity check for cache keys) */
  readonly sourceLength: number;
  /** prepared on the normalized document settled in memory (prepareLoaded), not on its base file parsed again */
  readonly inMemory: boolean;
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
  /** the process's fallback fonts and shaped words (from the composition root) */
  library: FontLibrary;
  /** the fallback-font subsets of this template's renders: they grow as characters appear */
  subsets: FontSubsets;
  /** the tail of the render queue of this template */
  queue: Promise<unknown>;
  /**
   * the plan of the form's script sessions, from its scripts read before the base dropped them
   * (undefined: none compute or check values)
   */
  scripts: SessionPlan | undefined;
  sandbox: ScriptSandbox | undefined;
}

/** Heap + buffers of a prepared template per byte of its base (measured 7-14x on the corpus). */
const MEMORY_FACTOR = 12;

/** What normalizing a loaded template leaves besides the document itself. */
interface Normalized {
  /** the normalized document (changed in place) */
  doc: PDFDocument;
  /** the standard faces embedded for renders */
  fonts: ReadonlyMap<StandardFonts, PDFFont>;
  scripts: SessionPlan | undefined;
}

/** Normalizes a loaded template in place: what its base file is saved from (nothing is written yet). */
function normalizeLoaded(
  { doc, context: ctx, catalog }: LoadedPdf,
  analysis: TemplateAnalysis,
  options: PrepareOptions,
): Normalized {
  const pages = collectPages(ctx, catalog, DEFAULT_LIMITS);
  const acroForm = getDict(catalog, 'AcroForm');
  const fields = collectFields(ctx, acroForm, pages, DEFAULT_LIMITS);
  // Widgets only pages reach (and kids listed in place of their field) become reachable from
  // /AcroForm /Fields, so other readers of unflattened output see the fields we fill.
  repairFieldList(ctx, acroForm, fields);
  const fonts = new FontSet(doc, options.fonts ?? new FontLibrary(), new FontSubsets());
  // Read before the scripts are stripped from the base: renders run them in the sandbox.
  const read = readFormScripts(ctx, catalog, acroForm, fields);
  const scripts = read && planSessions(read);
  const fc: FillContext = { doc, ctx, acroForm, fonts, warnings: [] };
  const needAppearances = acroForm?.lookup(N('NeedAppearances'))?.toString() === 'true';
  redrawStale(fc, fields, needAppearances);
  dropXfaAndNeedAppearances(catalog, acroForm);
  dropUsageRights(catalog);
  stripActiveContent({ catalog, pages: pages.map((p) => p.dict), formDicts: formDicts(fields) }, options);
  // The faces renders will draw with, embedded here once: text fields' /DA faces, ZapfDingbats for
  // generated check marks, Helvetica-Bold for watermarks.
  const writable = new Set(analysis.fields.filter((f) => f.detail.ft !== 'Btn').map((f) => f.pdfMeta.originalName));
  for (const f of fields) if (writable.has(f.fullName)) for (const w of f.widgets) textStyle(w, acroForm, fonts);
  fonts.standardFont(StandardFonts.ZapfDingbats);
  fonts.standardFont(StandardFonts.HelveticaBold);
  // The objects are decrypted in memory: the base is written unencrypted (as every output is), as one
  // revision without the cross-reference and object streams of the template's.
  dropEncryptionAndXrefStreams(ctx);
  // What preparation cut loose (stripped scripts and files, replaced appearances) must not ride along
  // in the bytes of every output. The fonts embedded above for renders are kept.
  dropUnreachable(
    ctx,
    [...fonts.embeddedStandardFonts().values()].map((f) => f.ref),
  );
  return { doc, fonts: fonts.embeddedStandardFonts(), scripts };
}

/** The normalized template saved as its base file (one plain revision) and parsed again: the service's base. */
async function reparsedBase(doc: PDFDocument): Promise<{ loaded: LoadedPdf; version: string; size: number }> {
  // objectsPerTick: no setTimeout yield every 50 objects (a worker runs one job at a time anyway).
  const base = await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity });
  // No size/time limit here: the base is our own re-serialization of a template already accepted.
  const loaded = await loadPdf(base, { maxBytes: Number.MAX_SAFE_INTEGER });
  return { loaded, version: headerVersion(Buffer.from(base.subarray(0, 16)).toString('latin1')), size: base.length };
}

/** Library errors become RENDER_FAILED; PdfEngineErrors pass as they are. */
function engineError(err: unknown): PdfEngineError {
  if (err instanceof PdfEngineError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new PdfEngineError('RENDER_FAILED', `the PDF could not be generated (${msg.slice(0, 200)})`);
}

/** Everything data-independent, done once per template version. Throws PdfEngineError. */
export interface PrepareOptions {
  /** keep plain /URI web links (every other active content is stripped) */
  keepUriLinks: boolean;
  /**
   * The process's font library (parsed fallback fonts, shaped words), created by the composition
   * root and shared by every template; without one this template gets its own.
   */
  fonts?: FontLibrary;
  /**
   * The process's script sandbox (scripts/sandbox.ts), from the composition root; without one a render
   * that runs scripts starts a sandbox of its own and stops it after.
   */
  sandbox?: ScriptSandbox;
  /** q/Q balances of this document's page contents, already read (a one-shot render's analysis) */
  balances?: BalanceCache;
}

export async function prepareTemplate(
  bytes: Uint8Array,
  analysis: TemplateAnalysis,
  options: PrepareOptions = { keepUriLinks: false },
): Promise<PreparedTemplate> {
  try {
    return await prepare(bytes, analysis, options);
  } catch (err) {
    throw engineError(err);
  }
}

async function prepare(
  bytes: Uint8Array,
  analysis: TemplateAnalysis,
  options: PrepareOptions,
): Promise<PreparedTemplate> {
  const library = options.fonts ?? new FontLibrary();
  const normalized = normalizeLoaded(await loadPdf(bytes), analysis, { ...options, fonts: library });
  const base = await reparsedBase(normalized.doc);
  return fromBase(base.loaded, base.version, normalized, analysis, {
    library,
    sandbox: options.sandbox,
    memory: base.size * MEMORY_FACTOR,
    sourceLength: bytes.length,
    inMemory: false,
  });
}

/**
 * A template prepared for one render from the document its analysis read (`loaded`, parsed from `bytes`),
 * without saving and parsing the base file again: the normalized document is settled in memory into
 * what that parse would give (settle.ts), so the render writes the same bytes as one on the service's
 * prepared base. Where settling cannot promise that, the base is saved and parsed as prepare() does.
 * `loaded` is changed: it is this preparation's document from now on.
 */
export async function prepareLoaded(
  loaded: LoadedPdf,
  bytes: Uint8Array,
  analysis: TemplateAnalysis,
  options: PrepareOptions,
  /** called once the form's script plan is known (before the layout): a sandbox may start meanwhile */
  onScripts?: (plan: SessionPlan) => void,
): Promise<PreparedTemplate> {
  try {
    const library = options.fonts ?? new FontLibrary();
    const normalized = normalizeLoaded(loaded, analysis, { ...options, fonts: library });
    if (normalized.scripts) onScripts?.(normalized.scripts);
    const info = {
      library,
      sandbox: options.sandbox,
      balances: options.balances,
      memory: bytes.length * MEMORY_FACTOR,
      sourceLength: bytes.length,
    };
    if (await settleInMemory(loaded.doc)) {
      const version = headerVersion(loaded.context.header.toString());
      return fromBase(loaded, version, normalized, analysis, { ...info, inMemory: true });
    }
    const base = await reparsedBase(loaded.doc);
    // other objects than the analysis read: their balances are read again
    return fromBase(base.loaded, base.version, normalized, analysis, {
      ...info,
      balances: undefined,
      memory: base.size * MEMORY_FACTOR,
      inMemory: false,
    });
  } catch (err) {
    throw engineError(err);
  }
}

/** The version a base file's header names ("1.7"), as its first bytes read. */
function headerVersion(head: string): string {
  return /^%PDF-(\d\.\d)/.exec(head)?.[1] ?? '1.7';
}

/** The prepared template on the base document (parsed from the base file, or settled in memory). */
function fromBase(
  { doc, context: ctx, catalog }: LoadedPdf,
  version: string,
  { fonts, scripts }: Normalized,
  analysis: TemplateAnalysis,
  info: {
    library: FontLibrary;
    sandbox: ScriptSandbox | undefined;
    memory: number;
    sourceLength: number;
    inMemory: boolean;
    /** q/Q balances already read from these objects */
    balances?: BalanceCache;
  },
): PreparedTemplate {
  const pages = collectPages(ctx, catalog, DEFAULT_LIMITS);
  const acroForm = getDict(catalog, 'AcroForm');
  const fields = collectFields(ctx, acroForm, pages, DEFAULT_LIMITS);
  for (const font of fonts.values()) {
    if (!ctx.lookup(font.ref))
      throw new PdfEngineError('RENDER_FAILED', `font ${font.name} is missing from the normalized template`);
  }
  const { layout, objectStreams } = buildLayout({
    ctx,
    catalog,
    pageTree: pageTree(pages),
    formDicts: new Set(formDicts(fields)),
    version,
    firstFree: ctx.largestObjectNumber + 1,
  });
  // The prefix's object streams hold those numbers: a render's new objects come after them.
  ctx.largestObjectNumber += objectStreams;
  return {
    layout,
    baseId: createHash('sha256').update(layout.prefix).digest('base64url'),
    approxBytes: info.memory + layout.approxBytes,
    sourceLength: info.sourceLength,
    inMemory: info.inMemory,
    state: {
      doc,
      ctx,
      acroForm,
      index: indexFields(catalog, pages, fields, analysis.fields, info.balances),
      tracker: new ChangeTracker(ctx),
      fonts,
      library: info.library,
      subsets: new FontSubsets(),
      queue: Promise.resolve(),
      scripts,
      sandbox: info.sandbox,
    },
  };
}

/** Every page and the page tree nodes above it. */
function pageTree(pages: PageNode[]): PDFDict[] {
  const nodes = new Set<PDFDict>();
  for (const { dict } of pages) {
    let node: PDFDict | undefined = dict;
    for (let d = 0; node && !nodes.has(node) && d < MAX_FIELD_DEPTH; d++, node = getDict(node, 'Parent'))
      nodes.add(node);
  }
  return [...nodes];
}

/** pdf-lib's lists of things to embed at save time (fonts, images); we embed them ourselves. */
interface Embeddables {
  fonts: { embed(): Promise<void> }[];
  images: { embed(): Promise<void> }[];
}

async function renderOnce(p: PreparedTemplate, request: FillRequest): Promise<RenderParts> {
  const { doc, ctx, acroForm, index, tracker, fonts, library, subsets, scripts } = p.state;
  // a sandbox of this render alone: one session, no context worth keeping
  const ownSandbox =
    scripts && request.calculate !== false && !p.state.sandbox ? new ScriptSandbox({ keepContexts: false }) : undefined;
  const sandbox = p.state.sandbox ?? ownSandbox;
  const lists = doc as unknown as Embeddables;
  const counts = { fonts: lists.fonts.length, images: lists.images.length };
  tracker.begin();
  try {
    const fc: FillContext = {
      doc,
      ctx,
      acroForm,
      fonts: new FontSet(doc, library, subsets, fonts),
      warnings: [],
      fieldInfo: index.infoByName,
      drawn: request.flatten ? new Map() : undefined,
    };
    // While the form's scripts run in the sandbox's thread, the objects the caller's values changed are
    // serialized; those the results (or anything after) change again are written anew at the end. Not
    // when flattening: its results and the caller's values are drawn into the pages at the end.
    let ready: Prewritten | undefined;
    const meanwhile = request.flatten
      ? undefined
      : () => {
          tracker.mark();
          ready = prewrite(ctx, tracker.changed(), tracker.baseMax, tracker);
        };
    const report = await applyRequest(
      fc,
      index,
      request,
      scripts && sandbox ? { scripts, sandbox, meanwhile } : undefined,
    );
    // What doc.save() would flush: fonts (subsets of the fallback fonts) and images of this render.
    for (const e of [...lists.fonts.slice(counts.fonts), ...lists.images.slice(counts.images)]) await e.embed();
    if (ready) for (const n of tracker.changedSinceMark()) ready.delete(n);
    // Flattened, the fields and widgets are cut off from the pages and the catalog: the writer leaves
    // them out, with everything else no reader reaches.
    const { tail } = writeCompact(ctx, p.layout, tracker.changed(), tracker.baseMax, request.flatten === true, ready);
    return { base: p.layout.prefix, baseId: p.baseId, update: tail, warnings: fc.warnings, ...report };
  } finally {
    await ownSandbox?.close();
    lists.fonts.length = counts.fonts;
    lists.images.length = counts.images;
    tracker.restore();
  }
}

/** One render on a prepared template, as base + update (kept apart). Throws PdfEngineError. */
export function renderPreparedParts(prepared: PreparedTemplate, request: FillRequest): Promise<RenderParts> {
  const run = prepared.state.queue
    .then(() => renderOnce(prepared, request))
    .catch((err: unknown) => {
      throw engineError(err);
    });
  prepared.state.queue = run.catch(() => undefined);
  return run;
}

/** One render on a prepared template: base bytes + an incremental update, in one buffer. Throws PdfEngineError. */
export async function renderPrepared(prepared: PreparedTemplate, request: FillRequest): Promise<FillResult> {
  return joinParts(await renderPreparedParts(prepared, request));
}

/** The output PDF of a render in one buffer. */
export function joinParts({ base, update, warnings, scriptWarnings, scriptRejections }: RenderParts): FillResult {
  // Not zero-filled first (both parts overwrite all of it) nor from Buffer's shared pool (callers may
  // hand bytes.buffer on): the copy of a large prefix is most of a small form's render.
  const bytes = new Uint8Array(
    Buffer.allocUnsafeSlow(base.length + update.length).buffer,
    0,
    base.length + update.length,
  );
  bytes.set(base, 0);
  bytes.set(update, base.length);
  return { bytes, warnings, scriptWarnings, scriptRejections };
}
