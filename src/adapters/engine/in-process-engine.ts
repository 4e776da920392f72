import type { RenderEngine } from '../../ports/render-engine.js';
import { analyse } from '../../pdf/analysis/analyse.js';
import { fillPdf } from '../../pdf/fill/fill.js';
import { combineRenders } from '../../pdf/merge/combine.js';
import type { Limits } from '../../config.js';

/** The PDF engine called directly on the event loop (CLI, tests). */
export function inProcessEngine(limits: Pick<Limits, 'maxPages' | 'maxFields'>): RenderEngine {
  return {
    analyse: (bytes) => analyse(bytes, { maxPages: limits.maxPages, maxFields: limits.maxFields }),
    fill: (template, analysis, request, cacheKey) => fillPdf(template, analysis, request, cacheKey),
    combine: async (items) => combineRenders(items),
  };
}
