// A render worker: a child process that runs one engine job at a time for the pool (pool.ts).
// Engine errors cross back with their code and message; anything else is logged here, on this
// process's stderr, and reported as a generic RENDER_FAILED so no stack trace reaches an API client.
// This file is the worker process's composition root: its caches are built here, sized by the
// settings the pool passes (protocol.ts WorkerSettings). The same file, started as a worker_thread by
// reader-thread.ts, serves that thread: the jobs that read pages with pdf.js run there, so pdf.js never
// loads into the process that keeps the prepared templates.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { FontLibrary } from '../pdf/fonts/font-library.js';
import { fillCachedParts, fillParts } from '../pdf/fill/fill.js';
import { TemplateCache } from '../pdf/fill/template-cache.js';
import { ScriptSandbox } from '../pdf/scripts/sandbox.js';
import { FieldEditError, PdfEngineError } from '../pdf/types.js';
import { answerReaderJob, isReaderJob, READER_THREAD, ReaderThread, type ReaderJob } from './reader-thread.js';
import {
  ENV_SETTINGS,
  ENV_TEST_HOLD_DIR,
  ENV_TEST_JOBS,
  EXIT_OVER_MEMORY,
  type FillJob,
  type FillReply,
  type Job,
  type JobMessage,
  type WorkerMessage,
  type WorkerSettings,
} from './protocol.js';

/**
 * What the reader thread runs: the jobs that read page text (pdf.js). Imported there, on first use: the
 * worker process that keeps the prepared templates never loads the analysis and detection code (their
 * module sources stay out of its heap, any-ascii's 0.5 MB table among them).
 */
async function readerJob(job: ReaderJob): Promise<unknown> {
  if (job.kind === 'analyse') return (await import('../pdf/analysis/analyse.js')).analyse(job.bytes, job.limits);
  return (await import('../pdf/detect/detect-form.js')).detectForm(job.bytes, job.existing, job.limits);
}

/**
 * How long the script sandbox's thread outlives the last render that ran scripts, ms: it holds ~18 MB of
 * a worker's RSS (docs/performance.md, Session 11). A form with scripts rendered less often than this pays
 * the thread's start and its context again: Luxembourg 0.2-0.5 s instead of 5-20 ms, measured at load ~11.
 */
const SANDBOX_IDLE_MS = 60_000;

if (!isMainThread && workerData === READER_THREAD) {
  const port = parentPort!;
  port.on('message', (job: ReaderJob) => void answerReaderJob(job, readerJob).then((reply) => port.postMessage(reply)));
} else {
  await serveProcess();
}

async function serveProcess(): Promise<void> {
  const settings = JSON.parse(process.env[ENV_SETTINGS] ?? 'null') as WorkerSettings | null;
  if (!settings) throw new Error(`${ENV_SETTINGS} is not set: render workers are started by the pool (pool.ts)`);
  /** The pdf.js jobs' thread; this file is what the process runs (the bundle, tsc's output or the tsx entry). */
  const reader = new ReaderThread(process.argv[1]!);
  /**
   * The templates this worker has prepared, by the caller's cache key, sharing one font library and one
   * script sandbox (its thread starts with the first render that runs scripts and serves later ones until
   * it has been idle for SANDBOX_IDLE_MS).
   */
  const templates = new TemplateCache({
    ...settings.templateCache,
    fonts: new FontLibrary({ shapeCacheEntries: settings.fontShapeEntries }),
    sandbox: new ScriptSandbox({ idleMs: SANDBOX_IDLE_MS }),
  });

  /** A fill sent without bytes whose template this worker does not hold (any more). */
  class CacheMiss extends Error {}

  /**
   * template and analysis null = "you hold it under cacheKey" (the pool only does that when it sent it
   * before); heldBaseId = the base file the pool already has, which then stays out of the answer.
   */
  async function fill({ template, analysis, request, cacheKey, heldBaseId }: FillJob): Promise<FillReply> {
    const parts =
      template && analysis
        ? await fillParts(template, analysis, request, cacheKey, templates)
        : cacheKey === undefined
          ? undefined
          : await fillCachedParts(templates, cacheKey, request);
    if (!parts) throw new CacheMiss();
    const { baseId, base, update, warnings, scriptWarnings, scriptRejections } = parts;
    return {
      baseId,
      base: baseId === heldBaseId ? undefined : base,
      update,
      warnings,
      scriptWarnings,
      scriptRejections,
    };
  }

  let testJobs: Awaited<typeof import('./test-jobs.js')> | undefined;
  let hold: (() => Promise<void>) | undefined;
  if (process.env[ENV_TEST_JOBS] === '1') {
    const tests = await import('./test-jobs.js');
    testJobs = tests;
    const dir = process.env[ENV_TEST_HOLD_DIR];
    if (dir) hold = () => tests.holdJob(dir);
  }

  function handle(job: Job): Promise<unknown> {
    if (isReaderJob(job)) return reader.run(job);
    switch (job.kind) {
      case 'fill':
        return fill(job);
      // batches' combined files and the field editor are rare next to renders: their code loads on first use
      case 'combine':
        return import('./combine-files.js').then((m) => m.combineFiles(job.items, job.output, job.signature));
      case 'edit':
        return import('../pdf/edit/edit-fields.js').then((m) => m.editFields(job.bytes, job.edits, job.limits));
      default: {
        const test = testJobs?.testJobs[job.kind];
        if (!test) throw new Error(`unknown job kind "${job.kind}"`);
        return test(...job.args);
      }
    }
  }

  const send = (msg: WorkerMessage, then?: () => void) => process.send!(msg, undefined, undefined, () => then?.());

  /** V8's message when a typed array or ArrayBuffer cannot be allocated (off-heap memory exhausted). */
  const isAllocationFailure = (err: unknown) =>
    err instanceof RangeError && /allocation failed|invalid (typed )?array length/i.test(err.message);

  async function run({ id, job }: JobMessage): Promise<void> {
    try {
      await hold?.();
      send({ type: 'done', id, value: await handle(job) });
    } catch (err) {
      if (err instanceof CacheMiss) {
        send({ type: 'miss', id });
        return;
      }
      if (err instanceof FieldEditError) {
        send({ type: 'refused', id, problems: err.problems });
        return;
      }
      if (err instanceof PdfEngineError) {
        send({ type: 'failed', id, code: err.code, message: err.message });
        return;
      }
      console.error(`[render-worker ${process.pid}] ${job.kind} failed:`, err);
      if (isAllocationFailure(err)) {
        // The heap may be fragmented or nearly full: report, then leave so the pool starts a fresh worker.
        send({ type: 'failed', id, code: 'RENDER_FAILED', message: 'out of memory', memory: true }, () =>
          process.exit(EXIT_OVER_MEMORY),
        );
        return;
      }
      send({ type: 'failed', id, code: 'RENDER_FAILED', message: 'the PDF engine failed unexpectedly' });
    }
  }

  process.on('message', (msg: JobMessage) => void run(msg));
  // The parent is gone (crash or kill): nothing left to serve.
  process.on('disconnect', () => process.exit(0));
  process.on('uncaughtException', (err) => {
    console.error(`[render-worker ${process.pid}] uncaught:`, err);
    process.exit(1);
  });

  // Fallback memory bound for platforms without /proc, where the pool cannot watch our RSS from outside.
  // It only runs between async steps, so a long synchronous parse can overshoot; on Linux the pool's
  // outside watch catches that too.
  const budgetMb = settings.memoryMb;
  if (budgetMb > 0) {
    setInterval(() => {
      if (process.memoryUsage.rss() > budgetMb * 1024 * 1024) process.exit(EXIT_OVER_MEMORY);
    }, 100).unref();
  }

  send({ type: 'ready' });
}
