// The fill engine: template bytes + analysis + values in, filled (optionally flattened and
// watermarked) PDF bytes out. Every value we set gets an appearance stream of its own, so no viewer
// depends on /NeedAppearances. Failures become PdfEngineError, never a raw library error.
//
// A template is prepared once (prepare.ts: parse, normalize, base file, field index) and, when the
// caller passes a TemplateCache (template-cache.ts, built by the engine's composition root), kept there
// under the caller's cache key; each render is then written on its compact layout (one prefix per template version).
import { joinParts, prepareTemplate, renderPreparedParts } from './prepare.js';
import type { TemplateCache } from './template-cache.js';
import {
  PdfEngineError,
  type FillRequest,
  type FillResult,
  type RenderParts,
  type TemplateAnalysis,
} from '../types.js';

function engineError(err: unknown): PdfEngineError {
  if (err instanceof PdfEngineError) {
    // An unreadable template is a failed render here (the template was accepted once).
    return err.code === 'INVALID_PDF' ? new PdfEngineError('RENDER_FAILED', err.message) : err;
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new PdfEngineError('RENDER_FAILED', `the PDF could not be generated (${msg.slice(0, 200)})`);
}

/**
 * Fills a template. With a `cache`, the template is prepared once and kept under `cacheKey` (which names
 * the template version, unique per content; without it the bytes are hashed); without one, every call
 * prepares it afresh.
 */
export async function fillPdf(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  request: FillRequest,
  cacheKey?: string,
  cache?: TemplateCache,
): Promise<FillResult> {
  return joinParts(await fillParts(template, analysis, request, cacheKey, cache));
}

/** fillPdf with the output kept as base + update (a render worker sends the base only once). */
export async function fillParts(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  request: FillRequest,
  cacheKey?: string,
  cache?: TemplateCache,
): Promise<RenderParts> {
  try {
    const keep = request.keepUriLinks ?? false;
    const prepared = cache
      ? await cache.prepared(template, analysis, cacheKey, keep)
      : await prepareTemplate(template, analysis, { keepUriLinks: keep });
    return await renderPreparedParts(prepared, request);
  } catch (err) {
    throw engineError(err);
  }
}

/** A render from the cache alone, as base + update: undefined when no template is prepared under `cacheKey`. */
export async function fillCachedParts(
  cache: TemplateCache,
  cacheKey: string,
  request: FillRequest,
): Promise<RenderParts | undefined> {
  const hit = cache.get(cacheKey, request.keepUriLinks);
  if (!hit) return undefined;
  try {
    return await renderPreparedParts(hit, request);
  } catch (err) {
    throw engineError(err);
  }
}
