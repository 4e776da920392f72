// The fill engine: template bytes + analysis + values in, filled (optionally flattened and
// watermarked) PDF bytes out. Every value we set gets an appearance stream of its own, so no viewer
// depends on /NeedAppearances. Failures become PdfEngineError, never a raw library error.
//
// A template is prepared once (prepare.ts: parse, normalize, base file, field index) and kept in an
// LRU cache keyed by the caller's cache key (unique per template version, e.g. its blob key) or,
// without one, by a hash of its bytes; each render is then an incremental update on the base.
import { createHash } from 'node:crypto';
import { joinParts, prepareTemplate, renderPreparedParts, type PreparedTemplate } from './prepare.js';
import { TemplateCache } from './template-cache.js';
import type { FontLibrary } from '../appearance/font-library.js';
import {
  PdfEngineError,
  type FillRequest,
  type FillResult,
  type RenderParts,
  type TemplateAnalysis,
} from '../types.js';

const MB = 1024 * 1024;
const envInt = (name: string, def: number) => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n >= 0 && process.env[name] !== '' && process.env[name] !== undefined ? n : def;
};

/** Prepared templates of this process (a render worker has its own). */
export const templateCache = new TemplateCache({
  maxEntries: envInt('FORMCAST_TEMPLATE_CACHE_ENTRIES', 32),
  maxBytes: envInt('FORMCAST_TEMPLATE_CACHE_MB', 256) * MB,
});
const preparing = new Map<string, Promise<PreparedTemplate>>();

/** A template prepared with and without URI links is two preparations. */
function cacheKeyOf(template: Uint8Array, cacheKey: string | undefined, keepUriLinks = false): string {
  const links = keepUriLinks ? ':links' : '';
  return cacheKey !== undefined
    ? `key:${cacheKey}${links}`
    : `sha256:${createHash('sha256').update(template).digest('hex')}${links}`;
}

async function prepared(
  key: string,
  template: Uint8Array,
  analysis: TemplateAnalysis,
  keepUriLinks: boolean,
  fonts: FontLibrary | undefined,
): Promise<PreparedTemplate> {
  const hit = templateCache.get(key);
  // The length check catches a caller reusing a key for different bytes (cheaply, not fully).
  if (hit && hit.sourceLength === template.length) return hit;
  let pending = preparing.get(key);
  if (!pending) {
    pending = prepareTemplate(template, analysis, { keepUriLinks, fonts }).finally(() => preparing.delete(key));
    preparing.set(key, pending);
    const p = await pending;
    templateCache.set(key, p);
    return p;
  }
  return pending;
}

function engineError(err: unknown): PdfEngineError {
  if (err instanceof PdfEngineError) {
    // An unreadable template is a failed render here (the template was accepted once).
    return err.code === 'INVALID_PDF' ? new PdfEngineError('RENDER_FAILED', err.message) : err;
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new PdfEngineError('RENDER_FAILED', `the PDF could not be generated (${msg.slice(0, 200)})`);
}

/**
 * Fills a template. `cacheKey` names the template version (unique per content); without it the
 * bytes are hashed to find the prepared template. `fonts` is the composition root's font library
 * (shared by the templates it prepares; without one a template gets its own).
 */
export async function fillPdf(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  request: FillRequest,
  cacheKey?: string,
  fonts?: FontLibrary,
): Promise<FillResult> {
  return joinParts(await fillParts(template, analysis, request, cacheKey, fonts));
}

/** fillPdf with the output kept as base + update (a render worker sends the base only once). */
export async function fillParts(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  request: FillRequest,
  cacheKey?: string,
  fonts?: FontLibrary,
): Promise<RenderParts> {
  try {
    const keep = request.keepUriLinks ?? false;
    return await renderPreparedParts(
      await prepared(cacheKeyOf(template, cacheKey, keep), template, analysis, keep, fonts),
      request,
    );
  } catch (err) {
    throw engineError(err);
  }
}

/** A render from the cache alone, as base + update: undefined when no template is prepared under `cacheKey`. */
export async function fillCachedParts(cacheKey: string, request: FillRequest): Promise<RenderParts | undefined> {
  const hit = templateCache.get(cacheKeyOf(new Uint8Array(0), cacheKey, request.keepUriLinks));
  if (!hit) return undefined;
  try {
    return await renderPreparedParts(hit, request);
  } catch (err) {
    throw engineError(err);
  }
}
