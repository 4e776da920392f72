// One template, one render, in one process (the offline `formcast render`): the template is parsed once,
// analysed, prepared in memory and rendered, where the service parses it three times (analysis,
// preparation, the prepared base file read back) to keep that base for every later render. The output is
// the same bytes as the service's render of the same template and values (prepare.ts, settle.ts).
import { analyseLoaded, type AnalyseOptions } from '../analysis/analyse.js';
import type { FontLibrary } from '../fonts/font-library.js';
import { resolveLimits } from '../limits.js';
import { loadPdf } from '../load.js';
import { mayRunScripts } from '../scripts/may-run-scripts.js';
import { ScriptSandbox } from '../scripts/sandbox.js';
import { mayOpenSession } from '../scripts/session-plan.js';
import type { FillRequest, FillResult, TemplateAnalysis } from '../types.js';
import { joinParts, prepareLoaded, renderPreparedParts } from './prepare.js';
import type { BalanceCache } from '../content-balance.js';

export interface OneShotOptions extends AnalyseOptions {
  /** the render will run the form's scripts (default true): their sandbox then starts during preparation */
  calculate?: boolean;
  /** the font library the render draws with (default: one of its own) */
  fonts?: FontLibrary;
  /**
   * the render will draw on pages (flatten or watermark; default true): the analysis then reads each page
   * content's q/Q balance as it checks its size, and the preparation takes them (no second decode)
   */
  drawsOnPages?: boolean;
  /**
   * Called once the render has succeeded, before its script sandbox's thread ends: while V8's flags are
   * still those the render ran under (see SandboxOptions.baselineOnly). The CLI writes its fontkit code
   * cache here: V8 refuses a cache made under other flags than the load's.
   */
  afterRender?: () => void;
}

/** A template opened for a single render: its analysis, and the render (at most once). */
export interface OneShotTemplate {
  readonly analysis: TemplateAnalysis;
  /** Prepares the template and renders it. Throws PdfEngineError. */
  fill(request: FillRequest): Promise<FillResult>;
  /**
   * After fill(): whether the template was prepared in memory (false: settle.ts could not promise the
   * base's objects, and the base file was saved and parsed again as the service does).
   */
  readonly inMemory: boolean | undefined;
  /** Stops the script sandbox's thread if fill() did not run (a render refused before it); idempotent. */
  close(): Promise<void>;
}

/** Parses and analyses the template (PdfEngineError as analyse() throws them); fill() renders it once. */
export async function openOneShot(bytes: Uint8Array, options: OneShotOptions = {}): Promise<OneShotTemplate> {
  const lim = resolveLimits();
  const loaded = await loadPdf(bytes, { maxBytes: lim.maxBytes, maxParseMs: lim.maxParseMs });
  const calculate = options.calculate !== false;
  const sandbox = new ScriptSandbox({ keepContexts: false, baselineOnly: true });
  const balances: BalanceCache | undefined = options.drawsOnPages === false ? undefined : new WeakMap();
  // A document with scripts starts the sandbox's thread now: QuickJS loads during the analysis and the
  // preparation, where it used to start only once preparation had read the form's scripts.
  if (calculate && mayRunScripts(loaded.context)) sandbox.warm();
  let analysis: TemplateAnalysis;
  try {
    analysis = await analyseLoaded(loaded, bytes, lim, { ...options, balances });
  } catch (err) {
    await sandbox.close();
    throw err;
  }
  let used = false;
  let inMemory: boolean | undefined;
  return {
    analysis,
    get inMemory() {
      return inMemory;
    },
    close: () => sandbox.close(),
    async fill(request) {
      if (used) throw new Error('a one-shot template renders once');
      used = true;
      try {
        const warm = calculate && request.calculate !== false;
        const prepared = await prepareLoaded(
          loaded,
          bytes,
          analysis,
          { keepUriLinks: request.keepUriLinks ?? false, sandbox, fonts: options.fonts, balances },
          (plan) => {
            // a form whose checks are all answered without a session (special-check.ts) starts none here
            if (warm && mayOpenSession(plan)) sandbox.warm();
          },
        );
        inMemory = prepared.inMemory;
        const result = joinParts(await renderPreparedParts(prepared, request));
        options.afterRender?.();
        return result;
      } finally {
        await sandbox.close();
      }
    },
  };
}
