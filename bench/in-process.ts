// Our engine called directly, template bytes and analysis already in memory: the cost of a render
// without HTTP, storage or the worker pool. Only the engine's public functions are used.
// fillPdf keeps the template prepared (prepare.ts) in a TemplateCache under `cacheKey`, as a render
// worker does for the service's blob key; the one-time preparation is timed separately ("prepare").
import { analyse } from '../src/pdf/analysis/analyse.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { prepareTemplate } from '../src/pdf/fill/prepare.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import type { FillValue, TemplateAnalysis } from '../src/pdf/types.js';
import { timeIt, type Summary, type TimeOptions } from './stats.js';

export interface InProcessResult {
  analyse: Summary;
  /** prepareTemplate(): parse, normalize, base file, field index; once per template version */
  prepare: Summary;
  fill: Summary;
  fillFlatten: Summary;
  /** one output of each mode, kept for qpdf --check */
  fillBytes: Uint8Array;
  fillFlattenBytes: Uint8Array;
  warnings: string[];
}

export async function benchInProcess(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  values: Record<string, FillValue>,
  opts: TimeOptions,
  cacheKey?: string,
): Promise<InProcessResult> {
  // analysis is per upload, not per render: fewer iterations keep the run short
  const analyseStats = await timeIt(() => analyse(template), {
    ...opts,
    iterations: Math.min(opts.iterations, 10),
    warmup: 1,
  });
  const prepareStats = await timeIt(() => prepareTemplate(template, analysis), {
    ...opts,
    iterations: Math.min(opts.iterations, 10),
    warmup: 1,
  });
  const cache = new TemplateCache({ maxEntries: 32, maxBytes: 256 * 1024 * 1024 });
  const fill = (flatten: boolean) => fillPdf(template, analysis, { values, flatten }, cacheKey, cache);
  // run each mode once outside the timing to keep its output and warnings
  const first = await fill(false);
  const firstFlat = await fill(true);
  return {
    analyse: analyseStats,
    prepare: prepareStats,
    fill: await timeIt(() => fill(false), opts),
    fillFlatten: await timeIt(() => fill(true), opts),
    fillBytes: first.bytes,
    fillFlattenBytes: firstFlat.bytes,
    warnings: [...new Set([...first.warnings, ...firstFlat.warnings])],
  };
}
