import type { EngineCallOptions, RenderEngine } from '../../ports/render-engine.js';

/** What the engine wrapper tells: a request of `account` is in the engine until the function is called. */
export type AwayFromLoop = (account: string) => () => void;

/**
 * The engine, telling the main-process share (main-share.ts) when a request's work is in the engine:
 * that time is the pool's to share, not the event loop's. Background work (async renders, batches) is
 * in no request, so it is not reported.
 */
export function meteredEngine(engine: RenderEngine, away: AwayFromLoop): RenderEngine {
  const metered = <T>(opts: EngineCallOptions | undefined, call: () => Promise<T>): Promise<T> => {
    if (!opts?.tenant || opts.priority === 'background') return call();
    const back = away(opts.tenant);
    return call().finally(back);
  };
  const wrapped: RenderEngine = {
    analyse: (bytes, opts) => metered(opts, () => engine.analyse(bytes, opts)),
    fill: (template, analysis, request, cacheKey, opts) =>
      metered(opts, () => engine.fill(template, analysis, request, cacheKey, opts)),
    combine: (items, opts) => metered(opts, () => engine.combine(items, opts)),
    editFields: (template, edits, opts) => metered(opts, () => engine.editFields(template, edits, opts)),
    detectFields: (template, existing, opts) => metered(opts, () => engine.detectFields(template, existing, opts)),
  };
  // optional members stay optional: callers test for them (admit is absent in-process)
  if (engine.close) wrapped.close = () => engine.close!();
  if (engine.admit) wrapped.admit = () => engine.admit!();
  if (engine.stats) wrapped.stats = () => engine.stats!();
  return wrapped;
}
