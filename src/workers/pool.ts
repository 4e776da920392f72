// The render pool: a fixed number of child processes, each running one engine job at a time.
//
// Why processes and not worker_threads: a Worker's `resourceLimits` bound its JS heap only. pdf-lib
// keeps PDF bytes, inflated streams and output in ArrayBuffers, which live outside that heap; measured
// here, a Worker limited to a 32 MB heap allocated 1.2 GB of ArrayBuffers and took the whole server's
// RSS to 1.25 GB. A process boundary lets us bound everything: the pool reads each busy worker's RSS
// from /proc every MEMORY_POLL_MS and kills it past `maxMemoryMb` (it works even while the worker is
// stuck in a synchronous parse), `--max-old-space-size` bounds the heap, and if the kernel's OOM killer
// acts anyway it picks the big worker, not the server. The cost is a copy of the bytes through the IPC
// pipe (~5 ms per MB each way, off the event loop for all but (de)serialisation; a render's template
// and base file cross once per worker, then only the data and the render's own part of the file do) and ~0.2 s
// to start a worker (plain node on a bundle, see worker-script.ts), paid once per worker, not per job.
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { FieldEditError, PdfEngineError } from '../pdf/types.js';
import { Lru } from '../lib/lru.js';
import { rssMb } from './memory.js';
import { workerScript } from './worker-script.js';
import { FairShare } from './fair-share.js';
import {
  ENV_SETTINGS,
  ENV_TEST_HOLD_DIR,
  ENV_TEST_JOBS,
  EXIT_OVER_MEMORY,
  type Job as JobInput,
  type JobKind,
  type JobMessage,
  withoutCachedInputs,
  type WorkerMessage,
  type WorkerSettings,
} from './protocol.js';

import { EngineBusyError, EngineCrashedError } from '../errors.js';
import { RENDER_SEMI_SPACE_MB, renderWorkerExecArgv } from './worker-flags.js';

export interface PoolOptions {
  /** Worker processes (started on demand, then kept). */
  size: number;
  /** Wall-clock budget of one job once a worker has it, ms. */
  timeoutMs: number;
  /** Resident memory budget of one worker process, MiB (baseline of an idle worker: ~100 MiB). */
  maxMemoryMb: number;
  /** Jobs that may wait for a worker, a hard cap; one more is refused with EngineBusyError. */
  maxQueue: number;
  /**
   * Longest expected wait for a worker, ms: a job that would wait longer (see expectedWaitMs: the jobs
   * ahead of it, each at its kind's measured time) is refused at once with EngineBusyError and a Retry-After, so a
   * burst is admitted as far as it can be served in time and the rest is shed before any work.
   */
  maxWaitMs?: number;
  /** Each worker's prepared-template cache; default 32 templates in a quarter of `maxMemoryMb`. */
  templateCache?: WorkerSettings['templateCache'];
  /** Each worker's cache of shaped words (default 4096). */
  fontShapeEntries?: number;
  /** Young-generation semi-space per worker, MiB; default RENDER_SEMI_SPACE_MB. */
  semiSpaceMb?: number;
  /** Told when a worker is stopped or dies (timeouts, memory, crashes). */
  onWorkerLost?: (event: { pid?: number; reason: StopReason; kind?: JobKind; rssMb?: number }) => void;
  /** @internal Tests only: the fair share's clock, ms (default performance.now). */
  now?: () => number;
  /** @internal Tests only: lets workers run the hostile jobs of test-jobs.ts. */
  testJobs?: boolean;
  /** @internal Tests only (with testJobs): every job waits for the test to release it (see holdJob). */
  testHoldDir?: string;
}

export interface PoolStats {
  size: number;
  /** live worker processes */
  workers: number;
  /** jobs running now */
  active: number;
  /** jobs waiting for a worker */
  queued: number;
  /** jobs handed to a worker since start (a job sent again after a crash counts twice) */
  dispatched: number;
  /** workers stopped or lost since start, by reason */
  lost: Record<StopReason, number>;
}

type StopReason = 'timeout' | 'memory' | 'crash';

interface Job {
  id: number;
  input: JobInput;
  /** whose work it is (an account id), for fair shares of the workers */
  tenant?: string;
  /** see RunOptions */
  cache?: RunOptions;
  /** this job's own time budget, ms (default: the pool's timeoutMs) */
  timeoutMs?: number;
  /** the job went out without its bytes (the worker was thought to hold them) */
  withoutBytes?: boolean;
  /** already sent again once after its worker was killed from outside */
  retried?: boolean;
  /** when a worker first got it (performance.now()), for the time-per-job estimate */
  sentAt?: number;
  /** when its current worker took it, on the fair share's clock (FairShare.started) */
  shareStart?: number;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * A job whose inputs (a fill's template bytes and analysis) a worker can keep prepared under `key`: sent
 * without them (protocol.ts withoutCachedInputs) to a worker known to hold the key; a worker that no
 * longer has it answers "miss" and the job is sent again, with them, to the same worker.
 */
export interface RunOptions {
  key: string;
}

/** Keys the pool remembers per worker (the worker's own cache holds at most 32 by default). */
const MAX_KEYS_PER_WORKER = 64;

interface Worker {
  child: ChildProcess;
  ready: boolean;
  dead: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** cache keys this worker has prepared (as far as the pool knows), least recently used first out */
  keys: Lru<string, true>;
}

/** How often busy workers' RSS is read. At ~2 GB/s of allocation a worker overshoots by ≤ ~50 MB. */
const MEMORY_POLL_MS = 25;
/** A worker that has not said "ready" by then is broken (through the tsx fallback, a cold cache compiles in ~1-2 s). */
const START_TIMEOUT_MS = 30_000;
/**
 * glibc malloc for workers: fixed thresholds instead of the dynamic ones, which grow (up to a 32 MB mmap
 * threshold and twice that kept untrimmed) as PDF-sized buffers come and go, so memory freed by a
 * finished job, above all by a reader thread that ended (reader-thread.ts), stayed in the process: a
 * worker kept ~30 MB after its thread's 33 analyses, ~5 with these (docs/performance.md, Session 10).
 * Buffers up to 4 MiB (every render's output on the corpus) stay on the heap: a 128 KiB threshold made
 * the 600 KB China fund render 0.7 ms CPU dearer (an mmap and its page faults per output).
 */
const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: String(4 << 20), MALLOC_TRIM_THRESHOLD_: String(1 << 20) };
/** Unix nice value of workers (0 normal, 19 lowest). */
const WORKER_NICE = 5;
/** Time per job assumed before any has finished, ms: a first render prepares its template too. */
const INITIAL_JOB_MS = 100;
/** Weight of the newest job in the moving average of time per job. */
const JOB_MS_WEIGHT = 0.1;
/** Consecutive start failures after which waiting jobs are failed instead of retried forever. */
const MAX_START_FAILURES = 3;
/**
 * interactive: a request waits for the answer (sync renders, uploads); first in line and subject to the
 * admission check. background: async renders and batch items, run by the job runner, which bounds how
 * many it submits; they take a worker only when no interactive job waits, so a deep batch never delays a
 * request by more than the jobs already running.
 */
export type JobPriority = 'interactive' | 'background';

export class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly background: Job[] = [];
  private readonly lost: Record<StopReason, number> = { timeout: 0, memory: 0, crash: 0 };
  private nextId = 1;
  private dispatched = 0;
  /**
   * Moving average of the time a worker spends per job, ms, by kind (the admission estimate): one slow
   * analysis must not make renders, a hundred times shorter, look minutes away.
   */
  private readonly jobMs = new Map<string, number>();
  private startFailures = 0;
  /** who goes next: tenants' worker time and shares (fair-share.ts) */
  private readonly share: FairShare;
  /** a later look at the queue, while only tenants at their share wait */
  private recheck?: NodeJS.Timeout;
  private closed = false;
  private readonly poll: NodeJS.Timeout;
  /** the script workers run (see worker-script.ts); jobs wait in the queue until it is known */
  private script?: string;

  /** The budget of one job once a worker runs it, ms. */
  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  constructor(private readonly opts: PoolOptions) {
    if (!(opts.size >= 1)) throw new RangeError('pool size must be at least 1');
    this.share = new FairShare({ workers: opts.size, now: opts.now ?? (() => performance.now()) });
    this.poll = setInterval(() => this.checkMemory(), MEMORY_POLL_MS).unref();
    void workerScript().then((script) => {
      this.script = script;
      this.pump();
    });
  }

  /**
   * How long a job submitted now would wait for a worker, ms (expected): each worker is free once its
   * running job has had its kind's measured time (what is left of it), the queued jobs go in order to
   * the worker free first, and the new job would get the first worker free after them. A slow analysis
   * on one worker does not hold up a render whose worker frees in milliseconds.
   */
  expectedWaitMs(): number {
    const now = performance.now();
    // a worker not started yet (or being replaced) counts as free: it takes jobs once it is up
    const free = new Array<number>(Math.max(this.opts.size, this.workers.length)).fill(0);
    this.workers.forEach((w, i) => {
      if (w.job) free[i] = Math.max(0, this.estimateMs(w.job) - (now - (w.job.sentAt ?? now)));
    });
    for (const job of this.queue) {
      const first = free.indexOf(Math.min(...free));
      free[first]! += this.estimateMs(job);
    }
    return Math.min(...free);
  }

  private estimateMs(job: Job): number {
    return this.jobMs.get(job.input.kind) ?? INITIAL_JOB_MS;
  }

  /** A job's time on its worker joins its kind's moving average (a stopped one's too: its time was spent). */
  private measured(job: Job): void {
    if (job.sentAt === undefined) return;
    const was = this.estimateMs(job);
    this.jobMs.set(job.input.kind, was + JOB_MS_WEIGHT * (performance.now() - job.sentAt - was));
  }

  /** Throws EngineBusyError when a job submitted now could not start within the wait budget. */
  admit(): void {
    // Capacity: one running job per worker (started or not yet) plus maxQueue waiting.
    const full = this.queue.length >= this.opts.maxQueue + this.opts.size - this.active();
    const wait = this.expectedWaitMs();
    // With a worker to spare the job starts at once, whatever the estimate says.
    const late =
      this.queue.length + this.active() >= this.opts.size &&
      this.opts.maxWaitMs !== undefined &&
      wait > this.opts.maxWaitMs;
    if (full || late) {
      throw new EngineBusyError(Math.min(60, Math.max(1, Math.ceil(wait / 1000))));
    }
  }

  /**
   * Runs one job on a worker; rejects with PdfEngineError, or EngineBusyError when full. Background jobs
   * skip the admission check (their submitter bounds them) and wait behind every interactive one.
   * `timeoutMs` replaces the pool's budget for jobs whose work grows with their input (a combine).
   */
  run<T>(
    input: JobInput,
    cache?: RunOptions,
    priority: JobPriority = 'interactive',
    tenant?: string,
    timeoutMs?: number,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new PdfEngineError('RENDER_FAILED', 'the render engine is closed'));
    if (priority === 'interactive') {
      try {
        this.admit();
      } catch (err) {
        return Promise.reject(err);
      }
    }
    if (this.startFailures >= MAX_START_FAILURES) this.startFailures = 0; // a new job: try starting again
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        input,
        cache,
        tenant,
        timeoutMs,
        resolve: resolve as (v: unknown) => void,
        reject,
      };
      (priority === 'interactive' ? this.queue : this.background).push(job);
      this.pump();
    });
  }

  stats(): PoolStats {
    return {
      size: this.opts.size,
      workers: this.workers.length,
      active: this.active(),
      queued: this.queue.length + this.background.length,
      dispatched: this.dispatched,
      lost: { ...this.lost },
    };
  }

  /** Fails waiting and running jobs, stops every worker and resolves once they have exited. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearTimeout(this.recheck);
    const err = () => new PdfEngineError('RENDER_FAILED', 'the render engine is closed');
    for (const job of [...this.queue.splice(0), ...this.background.splice(0)]) job.reject(err());
    await Promise.all(
      this.workers.map((w) => {
        if (w.job) this.settle(w)?.reject(err());
        return new Promise<void>((resolve) => {
          if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
          w.child.once('exit', () => resolve());
          w.child.kill('SIGTERM');
          setTimeout(() => w.child.kill('SIGKILL'), 2000).unref();
        });
      }),
    );
    this.workers.length = 0;
  }

  private active(): number {
    return this.workers.filter((w) => w.job).length;
  }

  private pump(): void {
    if (this.closed) return;
    for (;;) {
      const idle = this.workers.filter((w) => w.ready && !w.job && !w.dead);
      if (!(this.queue.length || this.background.length) || !idle.length) break;
      const job = this.takeNext();
      if (!job) {
        // Only work of tenants at their share waits: look again once the others' activity has aged out,
        // or a worker would idle until a running job ends (which may be a long one).
        this.recheck ??= setTimeout(() => {
          this.recheck = undefined;
          this.pump();
        }, this.share.activeMs).unref();
        break;
      }
      // Affinity: a worker that already holds the job's template gets it without the bytes.
      const key = job.cache?.key;
      this.dispatch((key !== undefined && idle.find((w) => w.keys.has(key))) || idle[0], job);
    }
    const starting = this.workers.filter((w) => !w.ready).length;
    if (
      this.script &&
      this.queue.length + this.background.length > starting &&
      this.workers.length < this.opts.size &&
      this.startFailures < MAX_START_FAILURES
    ) {
      this.spawn();
    }
  }

  /**
   * The next job: interactive first; within a queue, the oldest job of the tenant that used the least
   * worker time recently, skipping tenants at their share (see fair-share.ts).
   */
  private takeNext(): Job | undefined {
    const tenants = (queue: Job[]) => queue.map((j) => j.tenant);
    const queues = [this.queue, this.background];
    for (const [n, queue] of queues.entries()) {
      if (!queue.length) continue;
      const i = this.share.choose(tenants(queue), tenants(queues[1 - n]!));
      if (i >= 0) return queue.splice(i, 1)[0];
    }
    return undefined;
  }

  private settings(): WorkerSettings {
    return {
      memoryMb: this.opts.maxMemoryMb,
      // Prepared templates stay well inside the worker's memory budget unless configured otherwise.
      templateCache: this.opts.templateCache ?? {
        maxEntries: 32,
        maxBytes: Math.floor(this.opts.maxMemoryMb / 4) * 1024 * 1024,
      },
      fontShapeEntries: this.opts.fontShapeEntries ?? 4096,
    };
  }

  private spawn(): void {
    const child = fork(this.script!, [], {
      // Our own flags only: the parent's (tsx loader, --inspect) must not leak into workers.
      execArgv: renderWorkerExecArgv(this.opts.maxMemoryMb, this.opts.semiSpaceMb ?? RENDER_SEMI_SPACE_MB),
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...MALLOC_ENV,
        ...process.env, // an operator's own malloc settings win
        [ENV_SETTINGS]: JSON.stringify(this.settings()),
        [ENV_TEST_JOBS]: this.opts.testJobs ? '1' : '',
        [ENV_TEST_HOLD_DIR]: this.opts.testJobs ? (this.opts.testHoldDir ?? '') : '',
      },
    });
    // Renders are batch work: below-normal priority keeps the API's event loop (auth, health checks,
    // downloads) responsive when every core is rendering. Best effort (may be refused).
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, WORKER_NICE);
      } catch {
        /* not permitted here */
      }
    }
    const w: Worker = { child, ready: false, dead: false, keys: new Lru(MAX_KEYS_PER_WORKER) };
    this.workers.push(w); // referenced while starting: a job is waiting for it
    const startTimer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS).unref();
    child.on('message', (msg: WorkerMessage) => {
      if (msg.type === 'ready') {
        clearTimeout(startTimer);
        w.ready = true;
        this.startFailures = 0;
        this.pump();
        if (!w.job) this.idle(w);
        return;
      }
      if (msg.type === 'miss' && w.job?.id === msg.id) {
        // The worker dropped the template (its cache is bounded): send the job again with the bytes.
        w.keys.delete(w.job.cache?.key ?? '');
        this.send(w, w.job, false);
        return;
      }
      const job = w.job?.id === msg.id ? this.settle(w) : undefined;
      if (!job) return; // a late answer to a job already stopped
      if (msg.type === 'done') {
        if (job.cache) this.remember(w, job.cache.key);
        this.measured(job);
        job.resolve(msg.value);
      } else if (msg.type === 'miss')
        job.reject(new PdfEngineError('RENDER_FAILED', 'the render worker lost the template'));
      else if (msg.type === 'refused') job.reject(new FieldEditError(msg.problems));
      else if (msg.memory) this.stop(w, 'memory', job);
      else job.reject(new PdfEngineError(msg.code, msg.message));
      this.pump();
    });
    child.on('error', (err) => {
      console.error('[render-pool] worker process error:', err);
      this.gone(w, null, null);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(startTimer);
      this.gone(w, code, signal);
    });
  }

  private dispatch(w: Worker, job: Job): void {
    w.job = job;
    this.dispatched++;
    job.shareStart = this.share.started(job.tenant);
    w.timer = setTimeout(() => this.stop(w, 'timeout'), job.timeoutMs ?? this.opts.timeoutMs);
    w.child.channel?.ref(); // a running job keeps the process alive; an idle pool does not
    w.child.ref();
    this.send(w, job, !!job.cache && w.keys.has(job.cache.key));
  }

  private send(w: Worker, job: Job, withoutBytes: boolean): void {
    job.withoutBytes = withoutBytes;
    job.sentAt ??= performance.now();
    const msg: JobMessage = { id: job.id, job: withoutBytes ? withoutCachedInputs(job.input) : job.input };
    w.child.send(msg, (err) => {
      if (err && w.job === job) this.crashed(w);
    });
  }

  private remember(w: Worker, key: string): void {
    w.keys.set(key, true);
  }

  /** Detaches and returns the worker's job. */
  private settle(w: Worker): Job | undefined {
    const job = w.job;
    if (job?.shareStart !== undefined) this.share.finished(job.tenant, job.shareStart);
    if (job) job.shareStart = undefined;
    clearTimeout(w.timer);
    w.job = undefined;
    this.idle(w);
    return job;
  }

  private idle(w: Worker): void {
    w.child.channel?.unref();
    w.child.unref();
  }

  /** Kills a worker, failing its job (if any) with the reason; a fresh worker takes its place. */
  private stop(w: Worker, reason: StopReason, job = this.settle(w), rss?: number): void {
    if (w.dead) return;
    w.dead = true;
    w.child.kill('SIGKILL');
    this.lost[reason]++;
    if (job && reason === 'timeout') this.measured(job);
    this.opts.onWorkerLost?.({ pid: w.child.pid, reason, kind: job?.input.kind, rssMb: rss });
    job?.reject(stopError(job.input.kind, reason, { ...this.opts, timeoutMs: job.timeoutMs ?? this.opts.timeoutMs }));
    this.remove(w, true);
  }

  /**
   * The worker died while holding a job, and not by our hand (stop() marks a worker dead before it
   * kills it): the kernel's OOM killer, an operator's kill -9, a crash. Nothing says the input is at
   * fault, so the job runs once more on a fresh worker; a second death is answered as a server fault
   * (EngineCrashedError, 503), never as RENDER_FAILED / INVALID_PDF.
   */
  private crashed(w: Worker): void {
    if (w.dead) return;
    w.dead = true;
    const job = this.settle(w);
    w.child.kill('SIGKILL'); // already gone, or its pipe is broken: make sure
    this.lost.crash++;
    this.opts.onWorkerLost?.({ pid: w.child.pid, reason: 'crash', kind: job?.input.kind });
    if (job && !job.retried) {
      job.retried = true;
      this.queue.unshift(job); // first in line for the replacement worker
    } else job?.reject(new EngineCrashedError());
    this.remove(w, true);
  }

  /** The process exited or could not start. */
  private gone(w: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    if (w.dead || this.closed) return void (w.dead = true);
    if (!w.ready) this.startFailures++;
    // V8 aborts (SIGABRT) when --max-old-space-size is reached; our own sampler exits with its code.
    const reason: StopReason = signal === 'SIGABRT' || code === 134 || code === EXIT_OVER_MEMORY ? 'memory' : 'crash';
    if (reason === 'crash' && w.job) this.crashed(w);
    else if (w.job || w.ready) this.stop(w, reason);
    else {
      w.dead = true;
      this.remove(w, false);
    }
    if (this.startFailures >= MAX_START_FAILURES) {
      const err = new PdfEngineError('RENDER_FAILED', 'the render workers could not be started');
      for (const job of [...this.queue.splice(0), ...this.background.splice(0)]) job.reject(err);
    }
  }

  private remove(w: Worker, replace: boolean): void {
    const i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    if (this.closed) return;
    // Keep the pool warm: a worker that had started is replaced at once.
    if (replace && this.script && this.startFailures < MAX_START_FAILURES && this.workers.length < this.opts.size)
      this.spawn();
    this.pump();
  }

  private checkMemory(): void {
    for (const w of this.workers) {
      if (!w.job || w.dead || w.child.pid === undefined) continue;
      const rss = rssMb(w.child.pid);
      if (rss !== undefined && rss > this.opts.maxMemoryMb) this.stop(w, 'memory', this.settle(w), Math.round(rss));
    }
  }
}

/** An upload whose analysis is stopped is an unprocessable file (INVALID_PDF); a stopped fill or edit is RENDER_FAILED. */
function stopError(kind: JobKind, reason: StopReason, opts: PoolOptions): PdfEngineError {
  const what =
    kind === 'analyse'
      ? 'analysing the PDF'
      : kind === 'edit'
        ? 'editing the fields'
        : kind === 'detect'
          ? 'detecting the fields'
          : kind === 'combine'
            ? 'combining the items'
            : 'render';
  const code = kind === 'analyse' ? 'INVALID_PDF' : 'RENDER_FAILED';
  if (reason === 'timeout') return new PdfEngineError(code, `${what} exceeded the time budget of ${opts.timeoutMs} ms`);
  if (reason === 'memory')
    return new PdfEngineError(code, `${what} exceeded the memory budget of ${opts.maxMemoryMb} MB`);
  const doing = what === 'render' ? 'rendering' : what;
  return new PdfEngineError(code, `the render worker stopped unexpectedly while ${doing}`);
}
