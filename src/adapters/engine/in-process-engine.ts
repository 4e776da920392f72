import type { RenderEngine } from '../../ports/render-engine.js';
import { analyse } from '../../pdf/analysis/analyse.js';
import { FontLibrary } from '../../pdf/appearance/font-library.js';
import { fillPdf } from '../../pdf/fill/fill.js';
import type { Limits } from '../../config.js';

/** The PDF engine called directly on the event loop (CLI, tests). Its font caches live as long as it. */
export function inProcessEngine(
  limits: Pick<Limits, 'maxPages' | 'maxFields'> & Partial<Pick<Limits, 'fontShapeCacheEntries'>>,
): RenderEngine {
  const fonts = new FontLibrary({ shapeCacheEntries: limits.fontShapeCacheEntries ?? 4096 });
  return {
    analyse: (bytes) => analyse(bytes, { maxPages: limits.maxPages, maxFields: limits.maxFields }),
    fill: (template, analysis, request, cacheKey) => fillPdf(template, analysis, request, cacheKey, fonts),
  };
}
