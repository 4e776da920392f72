import type { RenderEngine } from '../../ports/render-engine.js';
import { analyse } from '../../pdf/analysis/analyse.js';
import { FontLibrary } from '../../pdf/fonts/font-library.js';
import { fillPdf } from '../../pdf/fill/fill.js';
import { TemplateCache } from '../../pdf/fill/template-cache.js';
import { combineFiles } from '../../workers/combine-files.js';
import { stagedCombine } from './combine-staging.js';
import { rememberAnalyseRefusals, rememberRefusals } from './known-refusals.js';
import { ScriptSandbox } from '../../pdf/scripts/sandbox.js';
import { editFields } from '../../pdf/edit/edit-fields.js';
import { detectForm } from '../../pdf/detect/detect-form.js';
import type { CacheSizes, Limits } from '../../config.js';

const MB = 1024 * 1024;

/**
 * The PDF engine called directly on the event loop (RENDER_WORKERS=0, the CLI, tests). Its template cache
 * and font library (shaped words, fallback fonts) live as long as it.
 */
export function inProcessEngine(
  limits: Pick<Limits, 'maxPages' | 'maxFields'>,
  caches: Pick<CacheSizes, 'templateEntries' | 'templateMb'> & Partial<Pick<CacheSizes, 'fontShapeEntries'>>,
): RenderEngine {
  const fonts = new FontLibrary({ shapeCacheEntries: caches.fontShapeEntries ?? 4096 });
  const sandbox = new ScriptSandbox();
  const templates = new TemplateCache({
    maxEntries: caches.templateEntries,
    maxBytes: caches.templateMb * MB,
    fonts,
    sandbox,
  });
  return {
    analyse: rememberAnalyseRefusals((bytes) =>
      analyse(bytes, { maxPages: limits.maxPages, maxFields: limits.maxFields }),
    ),
    fill: rememberRefusals((template, analysis, request, cacheKey) =>
      fillPdf(template, analysis, request, cacheKey, templates),
    ),
    // Through files as in the pool (combine-staging.ts): one item in memory at a time, the result on disk.
    combine: (sources, opts) => stagedCombine(sources, (items, output) => combineFiles(items, output, opts?.signature)),
    editFields: (template, edits) =>
      editFields(template, edits, { maxPages: limits.maxPages, maxFields: limits.maxFields }),
    detectFields: (template, existing) =>
      detectForm(template, existing, { edit: { maxPages: limits.maxPages, maxFields: limits.maxFields } }),
    // the form scripts' sandbox thread would otherwise keep a CLI process alive after its work
    close: () => sandbox.close(),
  };
}
