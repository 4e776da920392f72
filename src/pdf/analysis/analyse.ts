// The pure PDF analyser: template bytes in, fillable-field description out. Every failure is a
// PdfEngineError (INVALID_PDF for unusable input, PDF_LIMIT when a safety limit is exceeded).
import { PDFName } from '@cantoo/pdf-lib';
import { describeField } from './field-info.js';
import { fieldScripts, formScripts, readsResolver } from './field-scripts.js';
import { wantsPageText, withLabels } from './field-labels.js';
import { findLabels, labelInput } from './find-labels.js';
import { collectFields, formDicts } from '../field-tree.js';
import { resolveLimits, type AnalyseLimits } from '../limits.js';
import { loadPdf, type LoadedPdf } from '../load.js';
import { findRemovals } from '../sanitize/output-removals.js';
import { assignNames } from './names.js';
import { withTextOnlyPages } from './text-only-pages.js';
import { collectPages } from '../pages.js';
import { scriptBudget } from './script-source.js';
import { getDict } from '../pdf-objects.js';
import { checkStreamSizes } from './stream-sizes.js';
import type { BalanceCache } from '../content-balance.js';
import { PdfEngineError, type AnalysedField, type TemplateAnalysis } from '../types.js';

export type { AnalyseLimits } from '../limits.js';

/** A calculation's reads as the fully qualified names of the fields found (see readsResolver). */
function resolveCalculationReads(fields: Omit<AnalysedField, 'name'>[]): void {
  const resolve = readsResolver(fields.map((f) => f.pdfMeta.originalName));
  for (const f of fields) {
    if (!f.calculation?.reads) continue;
    const reads = resolve(f.calculation.reads);
    f.calculation = reads ? { kind: f.calculation.kind, reads } : { kind: f.calculation.kind };
  }
}

export interface AnalyseOptions {
  /**
   * Read the pages' text for captions (pdf.js; default true). Without it labels come from tooltips
   * alone: what a render needs (names, types, formats, options do not depend on captions), and the
   * offline CLI then never loads pdf.js.
   */
  captions?: boolean;
  /**
   * Filled with the q/Q balance of each page content stream the size check decodes anyway: a one-shot
   * render prepares the same objects and then does not decode them again (one-shot.ts).
   */
  balances?: BalanceCache;
}

export async function analyse(
  bytes: Uint8Array,
  limits?: Partial<AnalyseLimits>,
  options: AnalyseOptions = {},
): Promise<TemplateAnalysis> {
  const lim = resolveLimits(limits);
  const loaded = await loadPdf(bytes, { maxBytes: lim.maxBytes, maxParseMs: lim.maxParseMs });
  return analyseLoaded(loaded, bytes, lim, options);
}

/**
 * The analysis of a document already loaded from `bytes` (with `lim`'s size and time limits); it only
 * reads the document, so a one-shot render prepares the same objects afterwards (fill/one-shot.ts).
 */
export async function analyseLoaded(
  loaded: LoadedPdf,
  bytes: Uint8Array,
  lim: AnalyseLimits,
  options: AnalyseOptions = {},
): Promise<TemplateAnalysis> {
  const { context: ctx, catalog, encrypted } = loaded;
  try {
    const pages = collectPages(ctx, catalog, lim);
    // before anything decodes a stream: a bomb is refused here, not met by every render (issue 27)
    const undecodable = checkStreamSizes(ctx, pages, lim, options.balances);
    const acroForm = getDict(catalog, 'AcroForm');
    if (!acroForm) throw new PdfEngineError('INVALID_PDF', 'the PDF is not a form (no AcroForm)');

    const described: Omit<AnalysedField, 'name'>[] = [];
    const partialNames: string[][] = [];
    const rawFields = collectFields(ctx, acroForm, pages, lim);
    const raws: typeof rawFields = [];
    const budget = scriptBudget();
    for (const raw of rawFields) {
      if (raw.fullName === '') continue; // an unnamed field cannot be addressed by callers
      const field = describeField(ctx, raw, lim.maxDepth);
      if (!field) continue;
      Object.assign(field, fieldScripts(ctx, raw, lim.maxDepth, budget));
      described.push(field);
      partialNames.push(raw.partialNames);
      raws.push(raw);
      if (described.length > lim.maxFields) {
        throw new PdfEngineError('PDF_LIMIT', `the form has more than ${lim.maxFields} fields`);
      }
    }
    if (described.length === 0) {
      throw new PdfEngineError('INVALID_PDF', 'the PDF form has no fillable fields');
    }

    resolveCalculationReads(described);
    const names = assignNames(
      described.map((f, i) => ({ fullName: f.pdfMeta.originalName, partialNames: partialNames[i] })),
    );
    const found =
      options.captions === false
        ? described.map(() => ({ caption: null }))
        : await findLabels(
            bytes,
            raws.map((raw, i) => labelInput(ctx, raw, described[i])),
            { deadline: performance.now() + lim.maxLabelMs, maxItems: lim.maxTextItems, skipPages: undecodable },
            (i) => wantsPageText(described[i]),
            (wanted) => withTextOnlyPages(bytes, ctx, pages, wanted, encrypted),
          );
    return {
      fields: withLabels(
        described.map((f, i) => ({ name: names[i], ...f })),
        found,
      ),
      pageCount: pages.length,
      encrypted,
      hasXfa: acroForm.has(PDFName.of('XFA')),
      removedFromOutput: findRemovals(
        { catalog, pages: pages.map((p) => p.dict), formDicts: formDicts(rawFields) },
        acroForm,
      ),
      scripts: formScripts(ctx, catalog, acroForm, raws, lim.maxDepth, budget),
    };
  } catch (err) {
    if (err instanceof PdfEngineError) throw err;
    // pdf-lib throws on malformed objects it meets lazily (e.g. a broken stream): still our error.
    const msg = err instanceof Error ? err.message : String(err);
    throw new PdfEngineError('INVALID_PDF', `the PDF form could not be read (${msg.slice(0, 200)})`);
  }
}
