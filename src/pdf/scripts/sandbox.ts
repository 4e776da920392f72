// The script sandbox of one engine process: pdf.js's QuickJS (WebAssembly) in a worker thread, started
// on first use and kept for every later render; the composition root that owns the engine builds it and
// passes it in (template-cache.ts). QuickJS here has no interrupt handler, so the budget is enforced from
// outside: a session that runs past its time is ended by terminating the thread (which stops a busy wasm
// loop), as is one that crashes QuickJS; the next session starts a fresh thread. Memory is capped inside
// the thread (sandbox-thread.ts). The render worker itself is never at risk.
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { THREAD_SOURCE } from './sandbox-thread.js';

/** What a session's thread said, in order. */
export type ThreadMessage =
  | { type: 'step'; index: number }
  | { type: 'send'; detail: Record<string, unknown> }
  | { type: 'alert'; message: string }
  | { type: 'unsupported'; what: string }
  | { type: 'crash'; message: string }
  | { type: 'done'; memoryBytes: number }
  | { type: 'ready' };

export interface SessionOutcome {
  messages: ThreadMessage[];
  /** done: every step ran; time: the budget ran out; crash: QuickJS failed (stack, memory, start) */
  ended: 'done' | 'time' | 'crash';
}

/** One event for pdf.js's dispatcher (`{ id, name, value, willCommit... }`). */
export type SandboxEvent = Record<string, unknown>;

export interface SandboxOptions {
  /** time one session's scripts may take, ms, from the first script on (default 2000) */
  timeMs?: number;
  /** WebAssembly memory QuickJS may grow to, MiB (default 64) */
  maxMemoryMb?: number;
}

/** A thread that grew past this after a session is replaced, to give the memory back. */
const KEEP_BELOW_BYTES = 32 * 1024 * 1024;
/** What one session's messages may add up to (JSON length): a computed form sends kilobytes. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Loading the wasm (or a context) takes ~50 ms; this only catches a thread that never comes up. */
const START_TIMEOUT_MS = 15_000;

export class ScriptSandbox {
  private readonly timeMs: number;
  private readonly maxMemoryBytes: number;
  private thread: Promise<Worker> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** threads that reported a crash between sessions: replaced before their next session */
  private readonly broken = new WeakSet<Worker>();
  /**
   * Marks that sessions put in calculate scripts to say which field runs (run-scripts.ts). Random per
   * sandbox, not per session, so that a form's session data is the same from render to render and its
   * context can be made ahead (sandbox-thread.ts); scripts cannot read action sources to forge one.
   */
  readonly nonce = randomBytes(8).toString('hex');

  constructor(opts: SandboxOptions = {}) {
    this.timeMs = opts.timeMs ?? 2000;
    this.maxMemoryBytes = (opts.maxMemoryMb ?? 64) * 1024 * 1024;
  }

  /** Runs one session (sessions of this sandbox run one at a time). */
  run(data: unknown, steps: SandboxEvent[]): Promise<SessionOutcome> {
    const next = this.queue.then(() => this.session(data, steps));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Stops the thread (a later run starts a new one). */
  async close(): Promise<void> {
    const t = this.thread;
    this.thread = undefined;
    if (t) await (await t.catch(() => undefined))?.terminate();
  }

  private start(): Promise<Worker> {
    const url = pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.sandbox.mjs')).href;
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      // plain JavaScript only: no loader of the parent's (tsx, test runners) is started in the thread
      execArgv: [],
      workerData: { sandboxUrl: url, maxMemoryBytes: this.maxMemoryBytes, maxOutputBytes: MAX_OUTPUT_BYTES },
      // the thread's own JavaScript heap (messages, pdf.js glue); QuickJS lives in wasm memory
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    // A thread failing after its session was given up (terminated, or crashed late) must never become an
    // uncaught error of the engine's process.
    worker.on('error', () => undefined);
    worker.on('message', (m: ThreadMessage) => {
      if (m.type === 'crash') this.broken.add(worker);
    });
    // QuickJS's own printing (an abort message) is dropped: what matters comes back as messages.
    worker.stdout.resume();
    worker.stderr.resume();
    return new Promise<Worker>((resolve, reject) => {
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
      const first = (m: ThreadMessage) => {
        if (m.type !== 'ready')
          return fail(new Error(`the script sandbox did not start (${m.type === 'crash' ? m.message : m.type})`));
        off();
        resolve(worker);
      };
      worker.on('error', fail).on('exit', exited).on('message', first);
    });
  }

  private async session(data: unknown, steps: SandboxEvent[]): Promise<SessionOutcome> {
    let worker: Worker;
    try {
      this.thread ??= this.start();
      worker = await this.thread;
      if (this.broken.has(worker)) {
        void worker.terminate();
        this.thread = this.start();
        worker = await this.thread;
      }
    } catch {
      this.thread = undefined;
      return { messages: [{ type: 'crash', message: 'the script sandbox could not start' }], ended: 'crash' };
    }
    // The thread keeps a context made for the last form's data: the same data (key) finds it ready.
    const json = JSON.stringify(data);
    const key = createHash('sha256').update(json).digest('base64url');
    const messages: ThreadMessage[] = [];
    const ended = await new Promise<SessionOutcome['ended']>((resolve) => {
      // The budget starts with the first step: creating the context runs only pdf.js's layer and the
      // form's data, never a script, and on a busy machine it alone can take a good part of a second.
      let timer = setTimeout(() => finish('time'), START_TIMEOUT_MS);
      const onMessage = (m: ThreadMessage) => {
        messages.push(m);
        if (m.type === 'step' && m.index === 0) {
          clearTimeout(timer);
          timer = setTimeout(() => finish('time'), this.timeMs);
        }
        if (m.type === 'done') finish('done');
        else if (m.type === 'crash') finish('crash');
      };
      const onError = (err: Error) => {
        messages.push({ type: 'crash', message: err.message.slice(0, 200) });
        finish('crash');
      };
      const onExit = () => finish('crash');
      const finish = (how: SessionOutcome['ended']) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        resolve(how);
      };
      // Both timers are ref'd: they also keep a process with nothing else to do alive until the session ends.
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ key, data, steps });
    });
    const done = messages.at(-1);
    if (ended !== 'done' || (done?.type === 'done' && done.memoryBytes > KEEP_BELOW_BYTES)) {
      this.thread = undefined;
      await worker.terminate();
    }
    return { messages, ended };
  }
}
