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

/** Env vars the pool sets for its workers. */
export const ENV_MEMORY_MB = 'FORMCAST_WORKER_MEMORY_MB';
export const ENV_TEST_JOBS = 'FORMCAST_WORKER_TEST_JOBS';
/** Tests only (with test jobs): each job first writes `<dir>/<pid>` and waits until the test removes it. */
export const ENV_TEST_HOLD_DIR = 'FORMCAST_WORKER_TEST_HOLD_DIR';
/** Memory budget of a worker's prepared-template cache, MiB (read by src/pdf/fill/fill.ts). */
export const ENV_TEMPLATE_CACHE_MB = 'FORMCAST_TEMPLATE_CACHE_MB';
