import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type PoolOptions, WorkerPool } from '../../src/workers/pool.js';

/**
 * The test side of the pool's hold hook (testHoldDir, see holdJob in src/workers/test-jobs.ts): workers
 * announce each job by a `<pid>` file and wait until it is removed. No timing luck: a test kills or
 * releases a worker that is known to be holding a job.
 */
export function heldJobs() {
  const dir = mkdtempSync(path.join(tmpdir(), 'formcast-held-'));
  return {
    dir,
    /** Waits until a worker other than `not` holds a job; returns its pid. */
    async next(not: number[] = [], ms = 60_000): Promise<number> {
      const until = Date.now() + ms;
      for (;;) {
        const pid = readdirSync(dir)
          .map(Number)
          .find((p) => !not.includes(p));
        if (pid !== undefined) return pid;
        if (Date.now() > until) throw new Error('no worker took the job');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Kills a holding worker from outside, as the OOM killer or an operator would. */
    kill(pid: number) {
      process.kill(pid, 'SIGKILL');
      rmSync(path.join(dir, String(pid)), { force: true });
    },
    release(pid: number) {
      rmSync(path.join(dir, String(pid)), { force: true });
    },
    held: (pid: number) => existsSync(path.join(dir, String(pid))),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A pool (one worker unless `options` say otherwise) whose workers hold each job until the test releases it (see heldJobs). */
export function heldPool(held: { dir: string }, options: Partial<PoolOptions> = {}): WorkerPool {
  return new WorkerPool({
    size: 1,
    timeoutMs: 60_000,
    maxMemoryMb: 512,
    maxQueue: 8,
    ...options,
    testJobs: true,
    testHoldDir: held.dir,
  });
}
