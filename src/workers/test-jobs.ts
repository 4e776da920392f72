// Hostile jobs for the pool's own tests: loaded by a worker only when the pool was created with
// `testJobs: true` (internal option, never set by the service). They stand in for PDFs that hang or
// explode, which the guarded engine is not supposed to let through.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PdfEngineError } from '../pdf/types.js';

/**
 * Holds a job before it runs: announces this worker's pid as `<dir>/<pid>` and waits until the test
 * deletes that file. A test can then kill the worker while it is known to hold a job, with no timing luck.
 */
export async function holdJob(dir: string): Promise<void> {
  const file = path.join(dir, String(process.pid));
  writeFileSync(file, String(process.pid));
  while (existsSync(file)) await new Promise((r) => setTimeout(r, 20));
}

// biome-ignore lint/suspicious/noExplicitAny: arguments arrive as structured clones of whatever the job kind takes
type Job = (...args: any[]) => Promise<unknown>;

export const testJobs: Record<string, Job> = {
  'test:pid': async (delayMs = 0) => {
    await new Promise((r) => setTimeout(r, delayMs));
    return process.pid;
  },
  'test:sleep': async (ms: number) => {
    await new Promise((r) => setTimeout(r, ms));
    return ms;
  },
  /** Blocks the worker's thread: only killing the process stops it. */
  'test:spin': async () => {
    for (;;);
  },
  /** Off-heap growth (what worker_threads resourceLimits cannot see): touched ArrayBuffers, no yield. */
  'test:arraybuffers': async (capMb: number) => {
    const keep: Uint8Array[] = [];
    for (let mb = 0; mb < capMb; mb += 16) keep.push(new Uint8Array(16 * 1024 * 1024).fill(1));
    return keep.length;
  },
  /** JS-heap growth: stopped by --max-old-space-size if the RSS watch does not get there first. */
  'test:heap': async (capMb: number) => {
    const keep: number[][] = [];
    for (let mb = 0; mb < capMb; mb += 8) keep.push(new Array<number>(1024 * 1024).fill(mb)); // 8 MB of slots each
    return keep.length;
  },
  'test:throw-engine': async (code: PdfEngineError['code'], message: string) => {
    throw new PdfEngineError(code, message);
  },
  /** The Node flags this worker process was started with. */
  'test:exec-argv': async () => process.execArgv,
  /** An environment variable as the worker process sees it. */
  'test:env': async (name: string) => process.env[name] ?? null,
  /** Whether this thread has loaded pdf.js (its worker module sets globalThis.pdfjsWorker). */
  'test:pdfjs-loaded': async () => 'pdfjsWorker' in globalThis,
  'test:throw': async (message: string) => {
    throw new Error(message);
  },
};
