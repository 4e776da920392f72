// The PDF engine in a pool of worker processes (src/workers/): renders and analyses run off the event
// loop, each within a time and memory budget, and a hostile file costs one worker, never the server.
import os from 'node:os';
import type { RenderEngine } from '../../ports/render-engine.js';
import type { FillResult, TemplateAnalysis } from '../../pdf/types.js';
import { WorkerPool, type PoolOptions, type PoolStats } from '../../workers/pool.js';

export { EngineBusyError } from '../../workers/pool.js';
export type { PoolStats } from '../../workers/pool.js';

export interface PoolEngineOptions {
  /** Worker processes; default one per core (os.availableParallelism()). */
  size?: number;
  /** Budget of one analyse or fill once a worker runs it, ms; default 30 s. */
  timeoutMs?: number;
  /** Resident memory budget per worker process, MiB; default 512. */
  maxMemoryMb?: number;
  /** Jobs allowed to wait for a worker; default 8 per worker. */
  maxQueue?: number;
  /** Template limits passed to analyse. */
  limits?: { maxPages?: number; maxFields?: number };
  onWorkerLost?: PoolOptions['onWorkerLost'];
}

export interface PoolEngine extends RenderEngine {
  close(): Promise<void>;
  /** Queue depth, running jobs and lost workers, for metrics. */
  stats(): PoolStats;
}

export function createPoolEngine(options: PoolEngineOptions = {}): PoolEngine {
  const size = options.size ?? Math.max(1, os.availableParallelism());
  const pool = new WorkerPool({
    size,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxMemoryMb: options.maxMemoryMb ?? 512,
    maxQueue: options.maxQueue ?? size * 8,
    onWorkerLost: options.onWorkerLost,
  });
  return poolEngine(pool, options.limits ?? {});
}

/** @internal The adapter over an existing pool (tests build the pool with test jobs enabled). */
export function poolEngine(pool: WorkerPool, limits: { maxPages?: number; maxFields?: number }): PoolEngine {
  return {
    // Both go through the IPC pipe as structured clones: only the view's own bytes are copied, so a
    // Buffer slice of Node's shared pool is safe to pass (nothing is transferred or detached).
    analyse: (bytes) => pool.run<TemplateAnalysis>('analyse', [bytes, limits]),
    // With a cache key, a worker that already prepared this template version gets the job without
    // the template bytes (see WorkerPool RunOptions).
    fill: (template, analysis, request, cacheKey) =>
      pool.run<FillResult>('fill', [template, analysis, request, cacheKey], cacheKey === undefined ? undefined : { key: cacheKey, bytesArg: 0 }),
    close: () => pool.close(),
    stats: () => pool.stats(),
  };
}
