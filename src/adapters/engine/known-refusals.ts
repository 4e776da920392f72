// Files the engine has refused: a fill that failed for a reason of the template itself, or an upload whose
// analysis did, is answered at once the next time, with the same error, without spending a worker
// (issue 27: a tenant hammering a stored decompression bomb cost a worker job of 40-60 ms per request, and
// each upload of the same bomb up to the decode ceiling again, each refused anyway).
import { createHash } from 'node:crypto';
import { Lru } from '../../lib/lru.js';
import { PdfEngineError, type FillRequest } from '../../pdf/types.js';
import type { RenderEngine } from '../../ports/render-engine.js';

/** Refusals remembered (each kind); past that the oldest are forgotten (and cost one more job each). */
const MAX_REFUSALS = 1024;

/**
 * PDF_LIMIT is the engine's answer to a template past a safety limit (a stream that decodes past the
 * ceiling, too many pages or fields, a field tree too deep, a file too large or damaged to parse): the
 * template's, whatever the values. INVALID_PDF and RENDER_FAILED may depend on the values or the machine
 * (a timeout, memory), so they are not remembered.
 */
function isTemplates(err: unknown): err is PdfEngineError {
  return err instanceof PdfEngineError && err.code === 'PDF_LIMIT';
}

/**
 * The part of a request that decides which of the template's contents a fill reads: flattening and the
 * watermark rewrite page content (where a stored bomb sits), a plain fill touches only the fields. A
 * refusal holds for the same template version and the same path, so a bomb that cannot be flattened is
 * still filled interactively.
 */
function pathOf(request: FillRequest): string {
  return `${request.flatten ? 'flatten' : 'fields'}${request.watermark ? '+watermark' : ''}`;
}

/**
 * The engine's `fill`, remembering refusals per template version (its cache key: unique per file
 * content, so a new version starts afresh). In this process's memory: see docs/decisions.md.
 */
export function rememberRefusals(fill: RenderEngine['fill']): RenderEngine['fill'] {
  const refused = new Lru<string, PdfEngineError>(MAX_REFUSALS);
  return async (template, analysis, request, cacheKey, opts) => {
    const key = cacheKey === undefined ? undefined : `${cacheKey}\n${pathOf(request)}`;
    const known = key === undefined ? undefined : refused.get(key);
    if (known) throw new PdfEngineError(known.code, known.message);
    try {
      return await fill(template, analysis, request, cacheKey, opts);
    } catch (err) {
      if (key !== undefined && isTemplates(err)) refused.set(key, err);
      throw err;
    }
  };
}

/**
 * The engine's `analyse`, remembering refusals by the file's SHA-256 (an upload has no version yet; the
 * hash costs ~2 ms per MB of this process's time, against a worker's decode up to the ceiling).
 */
export function rememberAnalyseRefusals(analyse: RenderEngine['analyse']): RenderEngine['analyse'] {
  const refused = new Lru<string, PdfEngineError>(MAX_REFUSALS);
  return async (bytes, opts) => {
    const key = createHash('sha256').update(bytes).digest('base64');
    const known = refused.get(key);
    if (known) throw new PdfEngineError(known.code, known.message);
    try {
      return await analyse(bytes, opts);
    } catch (err) {
      if (isTemplates(err)) refused.set(key, err);
      throw err;
    }
  };
}
