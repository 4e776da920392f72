// Messages between the pool (parent) and a render worker (child process). Sent with
// `serialization: 'advanced'` (V8 structured clone): Uint8Arrays travel as binary, not JSON.
import type { AnalyseLimits, EditLimits } from '../pdf/limits.js';
import type { CombineFileItem } from './combine-files.js';
import type { SignatureSlot } from '../pdf/seal/signature-placeholder.js';
import type { DetectLimits, ExistingForm } from '../pdf/detect/detect.js';
import type {
  FieldEdit,
  FieldEditProblem,
  FillRequest,
  PdfEngineError,
  ScriptReport,
  TemplateAnalysis,
} from '../pdf/types.js';

/** Analyse an uploaded template. */
export interface AnalyseJob {
  kind: 'analyse';
  bytes: Uint8Array;
  limits?: Partial<AnalyseLimits>;
}

/**
 * Fill a template. `template` and `analysis` are null when the pool knows this worker holds the template
 * prepared under `cacheKey` (see withoutCachedInputs); `heldBaseId` is the base file the pool already has
 * for that key, which then stays out of the answer (FillReply).
 */
export interface FillJob {
  kind: 'fill';
  template: Uint8Array | null;
  analysis: TemplateAnalysis | null;
  request: FillRequest;
  cacheKey?: string;
  heldBaseId?: string;
}

/**
 * Join finished renders into one PDF (a batch's combined file): the items are files the worker reads one
 * at a time and `output` the file it writes (see combine-files.ts); answers a CombineOutcome (its size,
 * and with `signature` the byte range and digest the CMS signs). Paths, not bytes: the server never
 * holds the items or the result whole, nor does the pipe carry them.
 */
export interface CombineJob {
  kind: 'combine';
  items: CombineFileItem[];
  output: string;
  signature?: SignatureSlot;
}

/** Apply field edits to a template (the field editor); answers the edited file. */
export interface EditJob {
  kind: 'edit';
  bytes: Uint8Array;
  edits: readonly FieldEdit[];
  limits?: Partial<EditLimits>;
}

/**
 * Detect the fields of a flat PDF (or those a form misses) and add them as real fields: answers a
 * DetectedForm (pdf/detect/detect-form.ts).
 */
export interface DetectJob {
  kind: 'detect';
  bytes: Uint8Array;
  existing?: ExistingForm;
  limits?: { detect?: Partial<DetectLimits>; edit?: Partial<EditLimits> };
}

/** The hostile and diagnostic jobs of test-jobs.ts: they exist only when the pool enables test jobs. */
export interface TestJob {
  kind: `test:${string}`;
  args: unknown[];
}

export type Job = AnalyseJob | FillJob | CombineJob | EditJob | DetectJob | TestJob;
export type JobKind = Job['kind'];

/** A job as the pool sends it: the job and the id its answer names. */
export interface JobMessage {
  id: number;
  job: Job;
}

/**
 * The job as sent to a worker that holds its prepared inputs: a fill without the template bytes and the
 * analysis (the bulk of the message). Other kinds are not cached and go whole.
 */
export function withoutCachedInputs(job: Job): Job {
  return job.kind === 'fill' ? { ...job, template: null, analysis: null } : job;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; id: number; value: unknown }
  /** a fill sent without template bytes found no prepared template under its key: resend with bytes */
  | { type: 'miss'; id: number }
  /** an EditJob's edits were refused (FieldEditError): the input's fault, every problem listed */
  | { type: 'refused'; id: number; problems: FieldEditProblem[] }
  | {
      type: 'failed';
      id: number;
      code: PdfEngineError['code'];
      message: string;
      /** the job ran out of memory; the worker exits after sending this */
      memory?: boolean;
    };

/**
 * A worker's answer to a FillJob: the render's part of the file, and the prefix ("base") only when its id is not
 * `heldBaseId` (the base the pool already holds for that key). The base is most of a render's bytes; sending it once
 * per template instead of once per render saves the pipe copy (~5 ms/MB).
 */
export interface FillReply extends Partial<ScriptReport> {
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
