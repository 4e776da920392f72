// The render worker's thread for the jobs that read pages with pdf.js (analysis, field detection).
//
// pdf.js cannot be unloaded once imported: a worker that analysed one upload kept its ~15 MB of code and
// heap (plus malloc the reading left behind) for its whole life, beside the prepared templates that
// renders need (docs/performance.md, Session 10). These jobs are rare next to renders, so they run in a
// worker_thread of the render worker, started with the first one and ended once it has been idle for
// IDLE_MS: its V8 heap and code go back to the system with it. A burst of uploads reuses one warm thread.
//
// Isolation is unchanged: the render worker still runs one job at a time and waits for the thread, so
// the pool's time budget and RSS watch (which end the whole worker process) cover the thread's work too.
import { Worker } from 'node:worker_threads';
import { FieldEditError, PdfEngineError } from '../pdf/types.js';
import type { Job } from './protocol.js';

/** The jobs the thread runs. */
export type ReaderJob = Extract<Job, { kind: 'analyse' | 'detect' }>;

export const isReaderJob = (job: Job): job is ReaderJob => job.kind === 'analyse' || job.kind === 'detect';

/**
 * How long an idle thread is kept, ms. Starting one costs ~0.2-0.5 s (our code and pdf.js loaded and
 * compiled again); uploads come one by one or in a burst, renders in between need none of it.
 */
const IDLE_MS = 5_000;

/** Marks the thread's workerData, so the worker script knows to serve reader jobs (render-worker.ts). */
export const READER_THREAD = 'formcast-reader-thread';

/** What the thread answers: the job's value, or its error in a form that crosses threads. */
export type ReaderReply =
  | { ok: true; value: unknown }
  | { ok: false; kind: 'engine'; code: PdfEngineError['code']; message: string }
  | { ok: false; kind: 'edit'; problems: FieldEditError['problems'] }
  | { ok: false; kind: 'other'; name: string; message: string; stack?: string };

/** The thread side: `run` as the thread's job handler, its errors made into a ReaderReply. */
export async function answerReaderJob(job: ReaderJob, run: (job: ReaderJob) => Promise<unknown>): Promise<ReaderReply> {
  try {
    return { ok: true, value: await run(job) };
  } catch (err) {
    if (err instanceof PdfEngineError) return { ok: false, kind: 'engine', code: err.code, message: err.message };
    if (err instanceof FieldEditError) return { ok: false, kind: 'edit', problems: err.problems };
    const e = err instanceof Error ? err : new Error(String(err));
    return { ok: false, kind: 'other', name: e.name, message: e.message, stack: e.stack };
  }
}

/** The error a reply stands for, as the render worker's own code would have thrown it. */
function replyError(reply: Exclude<ReaderReply, { ok: true }>): Error {
  if (reply.kind === 'engine') return new PdfEngineError(reply.code, reply.message);
  if (reply.kind === 'edit') return new FieldEditError(reply.problems);
  // a RangeError stays one: the worker tells an allocation failure by it and then leaves
  const err = reply.name === 'RangeError' ? new RangeError(reply.message) : new Error(reply.message);
  if (reply.stack) err.stack = reply.stack;
  return err;
}

/** The render worker's side: one thread at a time, started on demand, ended when idle. */
export class ReaderThread {
  private worker: Worker | undefined;
  private idle: NodeJS.Timeout | undefined;

  /** `script`: the file the render worker runs (the same code serves the thread). */
  constructor(private readonly script: string) {}

  /** Runs one job in the thread (the render worker sends one job at a time). */
  run(job: ReaderJob): Promise<unknown> {
    clearTimeout(this.idle);
    const worker = (this.worker ??= this.start());
    return new Promise<unknown>((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (this.worker === worker) this.idle = setTimeout(() => void this.stop(), IDLE_MS).unref();
      };
      const onMessage = (reply: ReaderReply) => {
        done();
        if (reply.ok) resolve(reply.value);
        else reject(replyError(reply));
      };
      const onError = (err: Error & { code?: string }) => {
        done();
        this.forget(worker);
        // its heap limit: report it as the worker's own allocation failure (out of memory, then exit)
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new RangeError('allocation failed in the reader thread') : err,
        );
      };
      const onExit = (code: number) => {
        done();
        this.forget(worker);
        reject(new Error(`the reader thread exited with code ${code}`));
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage(job);
    });
  }

  /** Ends the thread (a later job starts another). */
  async stop(): Promise<void> {
    clearTimeout(this.idle);
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  private forget(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(this.script, { workerData: READER_THREAD });
    worker.unref(); // an idle thread must not keep the worker process alive
    // an idle thread that fails or ends is simply replaced by the next job (a running job hears it itself)
    worker.on('error', () => undefined).on('exit', () => this.forget(worker));
    return worker;
  }
}
