// A worker killed from outside (OOM killer, kill -9) is not the input's fault: the job runs again on a
// fresh worker, and a second death is EngineCrashedError (503), not RENDER_FAILED / INVALID_PDF.
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool, type PoolOptions } from '../../src/workers/pool.js';
import { EngineCrashedError } from '../../src/errors.js';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';

type Lost = Parameters<NonNullable<PoolOptions['onWorkerLost']>>[0];

describe('pool: worker killed from outside', { timeout: 120_000 }, () => {
  const held = heldJobs();
  const lost: Lost[] = [];
  const pool = heldPool(held, { maxMemoryMb: 400, onWorkerLost: (e) => lost.push(e) });
  afterAll(async () => {
    await pool.close();
    held.cleanup();
  });

  it('runs the job again on a fresh worker when its worker is killed once', async () => {
    const job = pool.run<number>({ kind: 'test:pid', args: [0] });
    const first = await held.next();
    held.kill(first);
    const second = await held.next([first]);
    held.release(second);
    expect(await job).toBe(second); // answered by the fresh worker
    expect(second).not.toBe(first);
    expect(lost.at(-1)).toMatchObject({ pid: first, reason: 'crash', kind: 'test:pid' });
  });

  it('answers EngineCrashedError (a server fault) when the fresh worker is killed too', async () => {
    const job = pool.run<number>({ kind: 'test:pid', args: [0] }).catch((e: unknown) => e);
    const first = await held.next();
    held.kill(first);
    const second = await held.next([first]);
    held.kill(second);
    const err = await job;
    expect(err).toBeInstanceOf(EngineCrashedError);
    expect(err).not.toHaveProperty('code', 'RENDER_FAILED');
    // the pool is still serving
    const after = pool.run<number>({ kind: 'test:pid', args: [0] });
    held.release(await held.next([first, second]));
    expect(typeof (await after)).toBe('number');
  });

  it('still blames the input for a job stopped by our own time budget', async () => {
    const quick = new WorkerPool({ size: 1, timeoutMs: 1500, maxMemoryMb: 400, maxQueue: 8, testJobs: true });
    try {
      await expect(quick.run({ kind: 'test:spin', args: [] })).rejects.toMatchObject({
        name: 'PdfEngineError',
        code: 'RENDER_FAILED',
      });
      await expect(quick.run({ kind: 'analyse', bytes: new Uint8Array([1]) })).rejects.toMatchObject({
        code: 'INVALID_PDF',
      });
    } finally {
      await quick.close();
    }
  });
});
