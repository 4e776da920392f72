// Messages between the pool (parent) and a render worker (child process). Sent with
// `serialization: 'advanced'` (V8 structured clone): Uint8Arrays travel as binary, not JSON.
import type { PdfEngineError } from '../pdf/types.js';

/** 'analyse' and 'fill' in production; 'test:*' kinds exist only when the pool enables test jobs. */
export type JobKind = 'analyse' | 'fill' | 'combine' | `test:${string}`;

export interface JobMessage {
  id: number;
  kind: JobKind;
  args: unknown[];
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; id: number; value: unknown }
  /** a fill sent without template bytes found no prepared template under its key: resend with bytes */
  | { type: 'miss'; id: number }
  | {
      type: 'failed';
      id: number;
      code: PdfEngineError['code'];
      message: string;
      /** the job ran out of memory; the worker exits after sending this */
      memory?: boolean;
    };

/**
 * A worker's answer to a 'fill' job (args: template | null, analysis | null, request, cacheKey,
 * heldBaseId): the incremental update, and the base file only when its id is not `heldBaseId` (the
 * base the pool already holds for that key). The base is most of a render's bytes; sending it once
 * per template instead of once per render saves the pipe copy (~5 ms/MB).
 */
export interface FillReply {
  baseId: string;
  base?: Uint8Array;
  update: Uint8Array;
  warnings: string[];
}

/** Exit code a worker uses when its own memory sampler finds it over budget. */
export const EXIT_OVER_MEMORY = 71;

/**
 * What a worker is told when it starts (JSON in the ENV_SETTINGS env var): its budgets, from the
 * server's Config. The worker's composition root (render-worker.ts) builds its caches from them.
 */
export interface WorkerSettings {
  /** resident memory budget, MiB (the worker's own fallback check where the pool cannot read /proc) */
  memoryMb: number;
  /** the worker's prepared-template cache */
  templateCache: { maxEntries: number; maxBytes: number };
  /** shaped words the worker's font library keeps */
  fontShapeEntries: number;
}

/** Env vars the pool sets for its workers. */
export const ENV_SETTINGS = 'FORMCAST_WORKER_SETTINGS';
export const ENV_TEST_JOBS = 'FORMCAST_WORKER_TEST_JOBS';
/** Tests only (with test jobs): each job first writes `<dir>/<pid>` and waits until the test removes it. */
export const ENV_TEST_HOLD_DIR = 'FORMCAST_WORKER_TEST_HOLD_DIR';
