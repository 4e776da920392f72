// The PDF engine in a pool of worker processes (src/workers/): renders and analyses run off the event
// loop, each within a time and memory budget, and a hostile file costs one worker, never the server.
import os from 'node:os';
import type { EngineCallOptions, RenderEngine } from '../../ports/render-engine.js';
import { Lru } from '../../lib/lru.js';
import { PdfEngineError, type FillResult, type TemplateAnalysis } from '../../pdf/types.js';
import { WorkerPool, type PoolOptions, type PoolStats } from '../../workers/pool.js';
import type { FillReply } from '../../workers/protocol.js';
import type { CombineOutcome } from '../../pdf/merge/combine.js';
import type { DetectedForm } from '../../pdf/detect/detect-form.js';
import { stagedCombine, sweepDeadCombineFolders } from './combine-staging.js';
import { rememberAnalyseRefusals, rememberRefusals } from './known-refusals.js';

export type { PoolStats } from '../../workers/pool.js';

export interface PoolEngineOptions {
  /** Worker processes; default one per core (os.availableParallelism()). */
  size?: number;
  /** Budget of one analyse or fill once a worker runs it, ms; default 30 s. */
  timeoutMs?: number;
  /** Resident memory budget per worker process, MiB; default 512. */
  maxMemoryMb?: number;
  /** Young-generation semi-space per worker, MiB (see WorkerPool). */
  semiSpaceMb?: number;
  /** Jobs allowed to wait for a worker, a hard cap; default 256 per worker. */
  maxQueue?: number;
  /** Longest expected wait for a worker before a job is refused, ms; default 10 s. */
  maxWaitMs?: number;
  /** Template limits passed to analyse. */
  limits?: { maxPages?: number; maxFields?: number };
  /** Each worker's prepared-template cache; default 32 templates in a quarter of `maxMemoryMb`. */
  templateCache?: PoolOptions['templateCache'];
  fontShapeEntries?: PoolOptions['fontShapeEntries'];
  /** Budget of the base files this process keeps (see poolEngine), MiB; default 16. */
  baseFilesMb?: number;
  onWorkerLost?: PoolOptions['onWorkerLost'];
}

export interface PoolEngine extends RenderEngine {
  close(): Promise<void>;
  /** Queue depth, running jobs and lost workers, for metrics. */
  stats(): PoolStats;
}

export function createPoolEngine(options: PoolEngineOptions = {}): PoolEngine {
  const size = options.size ?? Math.max(1, os.availableParallelism());
  void sweepDeadCombineFolders(); // what a server killed mid-combine left behind
  const pool = new WorkerPool({
    size,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxMemoryMb: options.maxMemoryMb ?? 512,
    semiSpaceMb: options.semiSpaceMb,
    maxQueue: options.maxQueue ?? size * 256,
    maxWaitMs: options.maxWaitMs ?? 10_000,
    templateCache: options.templateCache,
    fontShapeEntries: options.fontShapeEntries,
    onWorkerLost: options.onWorkerLost,
  });
  return poolEngine(pool, options.limits ?? {}, options.baseFilesMb);
}

/** Base files held here, by cache key (a few hundred KB each for typical forms). */
const BASES_MAX = 64;
const MB = 1024 * 1024;
/** Time a combine may spend per item beyond the pool's job budget, ms (a few times the slowest measured). */
const COMBINE_MS_PER_ITEM = 500;

/** @internal The adapter over an existing pool (tests build the pool with test jobs enabled). */
export function poolEngine(
  pool: WorkerPool,
  limits: { maxPages?: number; maxFields?: number },
  baseFilesMb = 16,
): PoolEngine {
  // Each template version's base file (the bulk of every render of it), received once from a worker:
  // afterwards workers send only the render's part of the file (see FillReply). The budget counts in the server's
  // RSS, so it is small: a base that no longer fits just crosses the pipe again with its render.
  const bases = new Lru<string, { id: string; bytes: Uint8Array }>(
    BASES_MAX,
    baseFilesMb * MB,
    (b) => b.bytes.byteLength,
  );
  const fill = rememberRefusals(
    async (
      template: Uint8Array,
      analysis: TemplateAnalysis,
      request: Parameters<PoolEngine['fill']>[2],
      cacheKey?: string,
      opts?: EngineCallOptions,
    ) => {
      const held = cacheKey === undefined ? undefined : bases.get(cacheKey);
      const reply = await pool.run<FillReply>(
        { kind: 'fill', template, analysis, request, cacheKey, heldBaseId: held?.id },
        cacheKey === undefined ? undefined : { key: cacheKey },
        opts?.priority,
        opts?.tenant,
      );
      let base = reply.base;
      if (base) {
        if (cacheKey !== undefined) bases.set(cacheKey, { id: reply.baseId, bytes: base });
      } else if (held?.id === reply.baseId)
        base = held.bytes; // the reference taken before sending: eviction cannot lose it
      else throw new PdfEngineError('RENDER_FAILED', 'the render worker answered without the base file');
      return partsResult(base, reply.update, reply);
    },
  );
  return {
    // Both go through the IPC pipe as structured clones: only the view's own bytes are copied, so a
    // Buffer slice of Node's shared pool is safe to pass (nothing is transferred or detached).
    analyse: rememberAnalyseRefusals((bytes, opts) =>
      pool.run<TemplateAnalysis>({ kind: 'analyse', bytes, limits }, undefined, opts?.priority, opts?.tenant),
    ),
    // With a cache key, a worker that already prepared this template version gets the job without
    // the template bytes (see WorkerPool RunOptions).
    fill,
    // The items go to the worker as files it reads one at a time, the result comes back as a file
    // (combine-staging.ts): nothing of either crosses the pipe or stays in this process.
    // Its time budget grows with the items (measured ~20-130 ms each on a busy 2-core machine).
    combine: (sources, opts) =>
      stagedCombine(sources, (items, output) =>
        pool.run<CombineOutcome>(
          { kind: 'combine', items, output, signature: opts?.signature },
          undefined,
          opts?.priority,
          opts?.tenant,
          pool.timeoutMs + items.length * COMBINE_MS_PER_ITEM,
        ),
      ),
    // A hostile template costs a worker here, as in analyse; refused edits come back as FieldEditError.
    editFields: (bytes, edits, opts) =>
      pool.run<Uint8Array>({ kind: 'edit', bytes, edits, limits }, undefined, opts?.priority, opts?.tenant),
    // detection gets half the worker's time budget, so that adding the fields fits in the rest
    detectFields: (bytes, existing, opts) =>
      pool.run<DetectedForm>(
        { kind: 'detect', bytes, existing, limits: { detect: { maxMs: pool.timeoutMs / 2 }, edit: limits } },
        undefined,
        opts?.priority,
        opts?.tenant,
      ),
    close: () => pool.close(),
    admit: () => pool.admit(),
    stats: () => pool.stats(),
  };
}

/** A FillResult over base + update: `chunks` as they are; `bytes` joins them only if someone reads it. */
function partsResult(
  base: Uint8Array,
  update: Uint8Array,
  { warnings, scriptWarnings, scriptRejections }: Pick<FillReply, 'warnings' | 'scriptWarnings' | 'scriptRejections'>,
): FillResult {
  let joined: Uint8Array | undefined;
  return {
    chunks: update.length ? [base, update] : [base],
    warnings,
    scriptWarnings,
    scriptRejections,
    get bytes() {
      joined ??= Buffer.concat([base, update]);
      return joined;
    },
  };
}
