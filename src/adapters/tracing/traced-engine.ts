import type { RenderEngine } from '../../ports/render-engine.js';
import type { Tracer } from '../../ports/tracer.js';

/**
 * The engine with a span around each job (queue wait in a pool included). Only installed when tracing
 * is on: with it off, calls go straight to the engine.
 */
export function tracedEngine(engine: RenderEngine, tracer: Tracer): RenderEngine {
  const traced: RenderEngine = {
    analyse: (bytes, opts) =>
      tracer.inSpan('engine.analyse', { 'formcast.bytes': bytes.byteLength }, () => engine.analyse(bytes, opts)),
    fill: (template, analysis, request, cacheKey, opts) =>
      tracer.inSpan(
        'engine.fill',
        { 'formcast.template.pages': analysis.pageCount, 'formcast.engine.priority': opts?.priority ?? 'interactive' },
        () => engine.fill(template, analysis, request, cacheKey, opts),
      ),
    combine: (items, opts) =>
      tracer.inSpan('engine.combine', { 'formcast.items': items.length }, () => engine.combine(items, opts)),
    editFields: (template, edits, opts) =>
      tracer.inSpan('engine.edit_fields', { 'formcast.edits': edits.length }, () =>
        engine.editFields(template, edits, opts),
      ),
    detectFields: (template, existing, opts) =>
      tracer.inSpan('engine.detect_fields', { 'formcast.bytes': template.byteLength }, () =>
        engine.detectFields(template, existing, opts),
      ),
  };
  // optional members stay optional: callers test for them (admit is absent in-process)
  if (engine.close) traced.close = () => engine.close!();
  if (engine.admit) traced.admit = () => engine.admit!();
  if (engine.stats) traced.stats = () => engine.stats!();
  return traced;
}
