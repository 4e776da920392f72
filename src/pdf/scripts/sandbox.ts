// The script sandbox of one engine process: pdf.js's QuickJS (WebAssembly) in a worker thread, started on
// first use and kept for every later render (with idleMs: until it has been idle that long); the composition
// root that owns the engine builds it and passes it in (template-cache.ts). QuickJS here has no interrupt
// handler, so the budget is enforced from outside: a session that runs past its time is ended by terminating
// the thread (which stops a busy wasm loop), as is one that crashes QuickJS; the next session starts a fresh
// thread. Memory is capped inside the thread (sandbox-thread.ts). The render worker itself is never at risk.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { CALCULATING_COMMAND, SETUP_SOURCE } from './sandbox-setup.js';
import { THREAD_SOURCE } from './sandbox-thread.js';

/** What a session's thread said, in order. */
export type ThreadMessage =
  | { type: 'step'; index: number }
  | { type: 'send'; detail: Record<string, unknown> }
  | { type: 'alert'; message: string }
  | { type: 'unsupported'; what: string }
  | { type: 'crash'; message: string }
  | { type: 'done'; memoryBytes: number };

/** What the thread posts: its whole session at the end, or a word on the way (sandbox-thread.ts). */
type ThreadReply =
  | { type: 'ready' }
  | { type: 'need-data' }
  | { type: 'created' }
  | { type: 'crash'; message: string }
  | { type: 'end'; messages: ThreadMessage[]; memoryBytes: number };

/** A started thread and the shared memory where it writes the step and calculated field it is on. */
interface SandboxThread {
  worker: Worker;
  progress: Int32Array;
}

export interface SessionOutcome {
  messages: ThreadMessage[];
  /** done: every step ran; time: the budget ran out; crash: QuickJS failed (stack, memory, start) */
  ended: 'done' | 'time' | 'crash';
}

/** One event for pdf.js's dispatcher (`{ id, name, value, willCommit... }`). */
export type SandboxEvent = Record<string, unknown>;

/**
 * The form a session runs on: the key of its pristine context in the thread, and its data (pdf.js's form
 * model), made only if the thread has no context for the key yet (session-plan.ts).
 */
export interface SessionContext {
  key: string;
  data: () => unknown;
}

export interface SandboxOptions {
  /** time one session's scripts may take, ms, from the first script on (default 2000) */
  timeMs?: number;
  /** WebAssembly memory QuickJS may grow to, MiB (default 64) */
  maxMemoryMb?: number;
  /**
   * End the thread once no session has run for this long, ms (default: keep it for good). Its isolate,
   * QuickJS's memory and the pristine contexts (~18 MB for a real form) then go back to the system; the
   * next session starts a fresh thread and makes its context again.
   */
  idleMs?: number;
  /**
   * Keep each form's pristine context for the next render of it (default true). A one-shot render has no
   * next one: keeping it would only cost the scan of QuickJS's whole memory for its end.
   */
  keepContexts?: boolean;
  /**
   * Run QuickJS on V8's baseline WebAssembly code only (Liftoff), for a process that renders once (the
   * CLI). V8 otherwise recompiles QuickJS's hottest functions with TurboFan on background threads, and
   * ending the thread waits for those compilations (115-214 ms measured, 6-7 ms without), which sessions
   * of 10-20 ms finish long before they could pay off. V8's flags are the process's: the thread sets the
   * flag once it has started (a thread started under other flags than Node's own could not use Node's
   * code cache: +20 ms), and close() puts V8's defaults back, whatever ended the threads in between
   * (V8 reads the flag as QuickJS runs: put back any earlier, TurboFan compiles again). Ignored when the
   * process was started with a tiering flag of its own. Two such sandboxes alive at once in one process
   * would share the flag (the first to close ends it for both: slower, never wrong); the CLI has one
   * (docs/decisions.md, Session 22).
   */
  baselineOnly?: boolean;
}

/** What a baseline-only sandbox's thread sets before QuickJS compiles, and what close() sets back. */
const BASELINE_ONLY_FLAG = '--liftoff-only';
const TIERING_DEFAULTS = ['--no-liftoff-only', '--wasm-dynamic-tiering', '--wasm-tier-up'];
/** A tiering flag the process was started with (its command line, NODE_OPTIONS): then left alone. */
const TIERING_FLAG = /--(no-)?(liftoff|wasm[-_]tier[-_]up|wasm[-_]dynamic[-_]tiering)\b/;

function startedWithTieringFlag(): boolean {
  return TIERING_FLAG.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
}

/** A thread that grew past this after a session is replaced, to give the memory back. */
const KEEP_BELOW_BYTES = 32 * 1024 * 1024;
/** What one session's messages may add up to (JSON length): a computed form sends kilobytes. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Loading the wasm (or a context) takes ~50 ms; this only catches a thread that never comes up. */
const START_TIMEOUT_MS = 15_000;
/**
 * Pristine contexts a thread keeps (one per form data: a form whose check boxes a render sets has one per
 * combination of them), and their bytes in all (~1.2 MB each for a real form).
 */
const MAX_SNAPSHOTS = 16;
const MAX_SNAPSHOT_BYTES = 24 * 1024 * 1024;

export class ScriptSandbox {
  private readonly timeMs: number;
  private readonly maxMemoryBytes: number;
  private thread: Promise<SandboxThread> | undefined;
  /** the thread once it has started, while it is the one in use */
  private ready: SandboxThread | undefined;
  /** sessions asked for and not ended */
  private pending = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** threads that reported a crash between sessions: replaced before their next session */
  private readonly broken = new WeakSet<Worker>();
  private readonly idleMs: number | undefined;
  private readonly maxSnapshots: number;
  private readonly baselineOnly: boolean;
  /** a thread of this sandbox was told to set BASELINE_ONLY_FLAG since the last close() */
  private flagged = false;
  private idle: NodeJS.Timeout | undefined;

  constructor(opts: SandboxOptions = {}) {
    this.timeMs = opts.timeMs ?? 2000;
    this.maxMemoryBytes = (opts.maxMemoryMb ?? 64) * 1024 * 1024;
    this.idleMs = opts.idleMs;
    this.maxSnapshots = opts.keepContexts === false ? 0 : MAX_SNAPSHOTS;
    this.baselineOnly = (opts.baselineOnly ?? false) && !startedWithTieringFlag();
  }

  /**
   * Runs one session (sessions of this sandbox run one at a time). With a started thread and no other
   * session, the steps are posted before this returns: the caller's own work (writing its values) then
   * runs while the thread runs the scripts, not after it first awaits.
   */
  run(context: SessionContext, steps: SandboxEvent[]): Promise<SessionOutcome> {
    clearTimeout(this.idle);
    const ready = this.pending === 0 ? this.ready : undefined;
    this.pending++;
    const next =
      ready && !this.broken.has(ready.worker)
        ? this.exchange(ready, context, steps)
        : this.queue.then(() => this.session(context, steps));
    const settled = next.finally(() => {
      if (--this.pending === 0) this.idleEnd();
    });
    this.queue = settled.catch(() => undefined);
    return settled;
  }

  /** With idleMs: ends the thread unless a session starts first (run clears the timer). */
  private idleEnd(): void {
    if (this.idleMs === undefined) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.pending === 0) void this.close();
    }, this.idleMs).unref();
  }

  /**
   * Starts the thread now rather than with the first session, so that its start-up (loading pdf.js's
   * QuickJS) runs while the caller still prepares the render. A failed start is met by that session.
   */
  warm(): void {
    this.thread ??= this.start();
    this.thread.catch(() => undefined);
  }

  /** Stops the thread (a later run starts a new one). */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    const t = this.thread;
    this.thread = undefined;
    this.ready = undefined;
    const flagged = this.flagged;
    this.flagged = false;
    if (t) await (await t.catch(() => undefined))?.worker.terminate();
    if (flagged) for (const flag of TIERING_DEFAULTS) v8.setFlagsFromString(flag);
  }

  private start(): Promise<SandboxThread> {
    const url = pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.sandbox.mjs')).href;
    const progress = new SharedArrayBuffer(8);
    this.flagged ||= this.baselineOnly;
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      // plain JavaScript only: no loader of the parent's (tsx, test runners) is started in the thread
      execArgv: [],
      workerData: {
        sandboxUrl: url,
        maxMemoryBytes: this.maxMemoryBytes,
        maxOutputBytes: MAX_OUTPUT_BYTES,
        maxSnapshots: this.maxSnapshots,
        maxSnapshotBytes: MAX_SNAPSHOT_BYTES,
        setupSource: SETUP_SOURCE,
        v8Flags: this.baselineOnly ? BASELINE_ONLY_FLAG : '',
        progress,
      },
      // the thread's own JavaScript heap (messages, pdf.js glue); QuickJS lives in wasm memory
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    // A thread failing after its session was given up (terminated, or crashed late) must never become an
    // uncaught error of the engine's process.
    worker.on('error', () => undefined);
    worker.on('message', (m: ThreadReply) => {
      if (m.type === 'crash') this.broken.add(worker);
    });
    // after the first 'message' listener, which refs the thread's port again: the thread never holds the
    // process open (its sessions' listeners come after this one and leave the port as it is)
    worker.unref();
    // QuickJS's own printing (an abort message) is dropped inside the thread (THREAD_SOURCE), not read
    // here: a worker's stdout in flowing mode holds the process open even after unref().
    return new Promise<SandboxThread>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('the script sandbox did not start')), START_TIMEOUT_MS);
      const exited = () => fail(new Error('the script sandbox exited while starting'));
      const off = () => {
        clearTimeout(timer);
        worker.off('error', fail).off('exit', exited).off('message', first);
      };
      const fail = (err: Error) => {
        off();
        void worker.terminate();
        reject(err);
      };
      const first = (m: ThreadReply) => {
        if (m.type !== 'ready')
          return fail(new Error(`the script sandbox did not start (${m.type === 'crash' ? m.message : m.type})`));
        off();
        resolve({ worker, progress: new Int32Array(progress) });
      };
      worker.on('error', fail).on('exit', exited).on('message', first);
    });
  }

  private async session(context: SessionContext, steps: SandboxEvent[]): Promise<SessionOutcome> {
    let thread: SandboxThread;
    try {
      this.thread ??= this.start();
      thread = await this.thread;
      if (this.broken.has(thread.worker)) {
        void thread.worker.terminate();
        this.ready = undefined;
        this.thread = this.start();
        thread = await this.thread;
      }
    } catch {
      this.thread = undefined;
      this.ready = undefined;
      return { messages: [{ type: 'crash', message: 'the script sandbox could not start' }], ended: 'crash' };
    }
    this.ready = thread;
    return this.exchange(thread, context, steps);
  }

  /** One session on a started thread; the steps are posted before the first await. */
  private async exchange(
    thread: SandboxThread,
    context: SessionContext,
    steps: SandboxEvent[],
  ): Promise<SessionOutcome> {
    const { worker, progress } = thread;
    // The thread keeps a pristine context per form data (sandbox-thread.ts): the data itself is made and
    // sent only when the thread asks for it, the first time it meets this key.
    const { key } = context;
    let messages: ThreadMessage[] = [];
    const ended = await new Promise<SessionOutcome['ended']>((resolve) => {
      // The budget starts with the first step. A known form's context is back in a fraction of a
      // millisecond, so its clock starts now; a new form's context is made first (pdf.js's layer and the
      // form's data, never a script: on a busy machine that alone can take a good part of a second), so
      // its clock starts once the thread says the context is made.
      let timer = setTimeout(() => finish('time'), this.timeMs);
      const restart = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => finish('time'), ms);
      };
      const onMessage = (m: ThreadReply) => {
        if (m.type === 'need-data') {
          restart(START_TIMEOUT_MS);
          worker.postMessage({ key, data: context.data(), steps });
        } else if (m.type === 'created') restart(this.timeMs);
        else if (m.type === 'end') {
          messages = m.messages;
          messages.push({ type: 'done', memoryBytes: m.memoryBytes });
          finish('done');
        } else if (m.type === 'crash') {
          messages = [...progressMessages(progress), m];
          finish('crash');
        }
      };
      const onError = (err: Error) => {
        messages = [...progressMessages(progress), { type: 'crash', message: err.message.slice(0, 200) }];
        finish('crash');
      };
      const onExit = () => {
        messages = progressMessages(progress);
        finish('crash');
      };
      const finish = (how: SessionOutcome['ended']) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (how === 'time') messages = progressMessages(progress);
        resolve(how);
      };
      // Both timers are ref'd: they also keep a process with nothing else to do alive until the session ends.
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ key, steps });
    });
    const done = messages.at(-1);
    if (ended !== 'done' || (done?.type === 'done' && done.memoryBytes > KEEP_BELOW_BYTES)) {
      this.thread = undefined;
      this.ready = undefined;
      await worker.terminate();
    }
    return { messages, ended };
  }
}

/**
 * What a session that was cut short had reached, as the messages it would have sent: its step and the
 * calculated field it was on (run-scripts.ts reads them to blame that field).
 */
function progressMessages(progress: Int32Array): ThreadMessage[] {
  const step = Atomics.load(progress, 0);
  const field = Atomics.load(progress, 1);
  const out: ThreadMessage[] = [];
  if (step >= 0) out.push({ type: 'step', index: step });
  if (field > 0) out.push({ type: 'send', detail: { command: CALCULATING_COMMAND, id: `f${field - 1}` } });
  return out;
}
