import { claimJobs, releaseAllJobs } from './job-records.js';
import { retryDelayMs, runRenderJob, type JobDeps } from './run-render-job.js';
import { finishBatch } from '../batches/finish-batch.js';
import { claimFinishableBatch, deferBatch } from '../batches/batch-records.js';
import type { JobSignal } from '../../ports/job-signal.js';

// The job runner: every instance runs one. It claims due render jobs (async renders, then batch items)
// up to `concurrency` at a time and hands them to the engine at background priority, so interactive
// renders always go first and never queue behind a deep batch: at most `concurrency` background jobs are
// in the pool at once. It also finishes batches whose items are all done (combined file, event).
// It polls the database (other instances' jobs, retries after backoff, jobs of dead instances) and is
// woken at once when this instance accepts a job.

export function createJobSignal(): Required<JobSignal> {
  let listener: (() => void) | undefined;
  return {
    wake: () => listener?.(),
    listen(fn) {
      listener = fn;
    },
  };
}

export interface JobRunnerOptions {
  /** background jobs in flight at once */
  concurrency: number;
  /** how often the database is polled when nothing wakes the runner, ms */
  pollMs: number;
  /** how long a claim holds before another instance may take the job (its holder looks stuck), ms */
  leaseMs: number;
}

export interface JobRunner {
  wake(): void;
  /**
   * Stops claiming; resolves once the jobs in flight have settled (close the engine meanwhile to cut
   * them short: they are then given back, not failed) and every job still held is released.
   */
  stop(): Promise<void>;
}

export function startJobRunner(deps: JobDeps, opts: JobRunnerOptions): JobRunner {
  let stopping = false;
  let inFlight = 0;
  let ticking = false;
  let again = false;
  let finishing = false;
  // The tick at work, so stop() can wait for a claim in progress before it counts the running jobs.
  let ticker: Promise<void> | undefined;
  // Server faults met finishing each batch, for its backoff (per instance: a restart starts again at 2 s).
  const finishFaults = new Map<string, number>();
  const running = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;

  const schedule = (ms: number) => {
    if (stopping) return;
    clearTimeout(timer);
    // a request's wake() must not make the polls that follow part of its trace
    timer = setTimeout(() => deps.tracer.detached(tick), ms);
    timer.unref();
  };
  const track = (p: Promise<unknown>) => {
    running.add(p);
    void p.finally(() => running.delete(p));
  };

  async function claimAndRun(): Promise<void> {
    const free = opts.concurrency - inFlight;
    if (free <= 0) return;
    const now = deps.clock.now();
    const jobs = await claimJobs(
      deps.db,
      deps.dbKind,
      deps.instanceId,
      now,
      new Date(now.getTime() + opts.leaseMs),
      free,
    );
    // claimed while stop() began: left leased to this instance, which stop() releases
    if (stopping) return;
    for (const job of jobs) {
      inFlight++;
      // a span of its own, in the trace of the request that accepted it; ids only, never the request's data
      const attributes = {
        'formcast.render_id': job.render_id,
        'formcast.account_id': job.account_id,
        'formcast.job.kind': job.batch_id ? 'batch-item' : 'async',
        'formcast.job.attempt': job.attempts,
        ...(job.batch_id ? { 'formcast.batch_id': job.batch_id } : {}),
      };
      track(
        deps.tracer
          .inBackground('render.job', attributes, job.traceparent, async (annotate) => {
            const outcome = await runRenderJob(deps, job, () => stopping);
            annotate({ 'formcast.job.outcome': outcome });
          })
          .catch((err) => deps.log.error({ err, renderId: job.render_id }, 'async render job failed'))
          .finally(() => {
            inFlight--;
            schedule(0);
          }),
      );
    }
  }

  async function finishBatches(): Promise<void> {
    if (finishing) return;
    const now = deps.clock.now();
    const batch = await claimFinishableBatch(
      deps.db,
      deps.dbKind,
      deps.instanceId,
      now,
      new Date(now.getTime() + opts.leaseMs),
    );
    if (!batch) return;
    finishing = true;
    const attributes = {
      'formcast.batch_id': batch.id,
      'formcast.account_id': batch.account_id,
      'formcast.batch.items': batch.item_count,
    };
    track(
      deps.tracer
        .inBackground('batch.finish', attributes, batch.traceparent, async (annotate) => {
          const outcome = await finishBatch(deps, batch, () => stopping);
          annotate({ 'formcast.batch.outcome': outcome });
          return outcome;
        })
        .then(async (outcome) => {
          if (outcome !== 'deferred') return void finishFaults.delete(batch.id);
          const faults = (finishFaults.get(batch.id) ?? 0) + 1;
          finishFaults.set(batch.id, faults);
          await deferBatch(
            deps.db,
            batch.id,
            deps.instanceId,
            new Date(deps.clock.now().getTime() + retryDelayMs(faults)),
          );
        })
        .catch((err) => deps.log.error({ err, batchId: batch.id }, 'finishing a batch failed'))
        .finally(() => {
          finishing = false;
          schedule(0);
        }),
    );
  }

  async function tick(): Promise<void> {
    if (stopping) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    ticker = (async () => {
      try {
        await claimAndRun();
        await finishBatches();
      } catch (err) {
        deps.log.warn({ err }, 'job runner could not claim work; retrying');
      } finally {
        ticking = false;
      }
    })();
    await ticker;
    if (again) {
      again = false;
      schedule(0);
    } else schedule(opts.pollMs);
  }

  schedule(0);
  return {
    wake: () => schedule(0),
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await ticker;
      while (running.size) await Promise.allSettled([...running]);
      await releaseAllJobs(deps.db, deps.instanceId).catch((err) => deps.log.warn({ err }, 'could not release jobs'));
    },
  };
}
