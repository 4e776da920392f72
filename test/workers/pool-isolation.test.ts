// A job that hangs, eats memory or throws costs one worker process, never the caller or other jobs.
// The hostile jobs (test-jobs.ts) exist only in pools built with the internal `testJobs` option.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPoolEngine } from '../../src/adapters/engine/pool-engine.js';
import { EngineBusyError } from '../../src/ports/render-engine.js';
import { WorkerPool, type PoolOptions } from '../../src/workers/pool.js';
import { PdfEngineError } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();
const form = () => fs.readFileSync(path.join(dir ?? '', 'pdfs', 'luxembourg-certificat-salaire-160-2019.pdf'));
type Lost = Parameters<NonNullable<PoolOptions['onWorkerLost']>>[0];

describe('pool isolation', () => {
  const lost: Lost[] = [];
  const pool = new WorkerPool({
    size: 2,
    timeoutMs: 3000,
    maxMemoryMb: 400,
    maxQueue: 8,
    testJobs: true,
    onWorkerLost: (e) => lost.push(e),
  });
  afterAll(() => pool.close());

  it('stops a job that hangs at the time budget, replaces the worker and runs the next job', async () => {
    await Promise.all([pool.run({ kind: 'test:pid', args: [100] }), pool.run({ kind: 'test:pid', args: [100] })]); // both workers up: the budget starts at dispatch
    const started = performance.now();
    const hang = pool.run({ kind: 'test:spin', args: [] });
    const other = pool.run<number>({ kind: 'test:sleep', args: [200] }); // on the other worker, unaffected
    await expect(hang).rejects.toMatchObject({
      name: 'PdfEngineError',
      code: 'RENDER_FAILED',
      message: 'render exceeded the time budget of 3000 ms',
    });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(2990);
    expect(waited).toBeLessThan(4500);
    await expect(other).resolves.toBe(200);
    expect(lost.at(-1)).toMatchObject({ reason: 'timeout', kind: 'test:spin' });
    const pids = await Promise.all([
      pool.run<number>({ kind: 'test:pid', args: [100] }),
      pool.run<number>({ kind: 'test:pid', args: [100] }),
    ]);
    expect(pool.stats().workers).toBe(2);
    expect(pids).not.toContain(lost.at(-1)!.pid);
  });

  // A roomy time budget here: on a loaded machine, filling 400 MB can take seconds.
  const roomy = new WorkerPool({
    size: 1,
    timeoutMs: 30_000,
    maxMemoryMb: 400,
    maxQueue: 8,
    testJobs: true,
    onWorkerLost: (e) => lost.push(e),
  });
  // biome-ignore lint/suspicious/noDuplicateTestHooks: this pool is made for the tests below; closing it beside its definition keeps the pair together
  afterAll(() => roomy.close());

  it('stops a job whose ArrayBuffers outgrow the memory budget (which a worker heap limit cannot see)', async () => {
    await expect(roomy.run({ kind: 'test:arraybuffers', args: [3000] })).rejects.toMatchObject({
      code: 'RENDER_FAILED',
      message: 'render exceeded the memory budget of 400 MB',
    });
    const event = lost.at(-1)!;
    expect(event).toMatchObject({ reason: 'memory', kind: 'test:arraybuffers' });
    console.log(`ArrayBuffer job stopped at ${event.rssMb} MB RSS (budget 400 MB)`);
    expect(event.rssMb).toBeLessThan(400 + 200); // overshoot of one poll interval
    await expect(pool.run({ kind: 'test:sleep', args: [1] })).resolves.toBe(1);
  });

  it('stops a job whose JS heap outgrows the memory budget', async () => {
    await expect(roomy.run({ kind: 'test:heap', args: [3000] })).rejects.toMatchObject({
      code: 'RENDER_FAILED',
      message: 'render exceeded the memory budget of 400 MB',
    });
    expect(lost.at(-1)).toMatchObject({ reason: 'memory', kind: 'test:heap' });
    await expect(pool.run({ kind: 'test:sleep', args: [1] })).resolves.toBe(1);
  });

  it('passes engine errors through with their code and message', async () => {
    const err = await pool
      .run({ kind: 'test:throw-engine', args: ['PDF_LIMIT', 'the form has more than 10 fields'] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfEngineError);
    expect(err).toMatchObject({ code: 'PDF_LIMIT', message: 'the form has more than 10 fields' });
  });

  it('turns any other error into a generic RENDER_FAILED without its message or stack', async () => {
    const err = (await pool
      .run({ kind: 'test:throw', args: ['secret path /etc/x'] })
      .catch((e: unknown) => e)) as PdfEngineError;
    expect(err).toBeInstanceOf(PdfEngineError);
    expect(err.code).toBe('RENDER_FAILED');
    expect(`${err.message} ${err.stack}`).not.toContain('secret');
    await expect(pool.run({ kind: 'test:sleep', args: [1] })).resolves.toBe(1); // the worker survives a thrown error
  });

  it('answers INVALID_PDF when analysing an upload exceeds the time budget', async () => {
    if (!dir) return;
    const quick = createPoolEngine({ size: 1, timeoutMs: 1 });
    try {
      await expect(quick.analyse(form())).rejects.toMatchObject({
        code: 'INVALID_PDF',
        message: 'analysing the PDF exceeded the time budget of 1 ms',
      });
    } finally {
      await quick.close();
    }
  });
});

describe('pool queue', () => {
  /** A pool of test jobs with a wait budget and room to queue. */
  const queuePool = (size: number, maxWaitMs: number) =>
    new WorkerPool({ size, timeoutMs: 30_000, maxMemoryMb: 400, maxQueue: 10_000, maxWaitMs, testJobs: true });

  it('admits jobs while their expected wait fits the budget and refuses the next with a Retry-After', async () => {
    // One worker and the initial estimate of 100 ms per job: jobs 0-10 wait at most 1000 ms, the 12th would wait 1100 ms.
    const pool = queuePool(1, 1000);
    try {
      const admitted = Array.from({ length: 11 }, () => pool.run({ kind: 'test:sleep', args: [1] }));
      const refused = await pool.run({ kind: 'test:sleep', args: [1] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(EngineBusyError);
      expect((refused as EngineBusyError).retryAfterSeconds).toBe(2);
      await expect(Promise.all(admitted)).resolves.toHaveLength(11);
      expect(() => pool.admit()).not.toThrow(); // drained: room again
    } finally {
      await pool.close();
    }
  });

  it('estimates each kind of job by its own time: a slow one does not make short ones look far away', async () => {
    // One worker, a 1000 ms budget. After a 2.5 s job of one kind, that kind is estimated at >= 340 ms
    // (the moving average from 100), the other kind still at 100 ms: behind a running slow job, the fifth
    // short one waits at most 340 + 4 × 100 = 740 ms and is admitted. One estimate shared by both kinds
    // (340 ms each) admitted two and refused the third.
    const pool = queuePool(1, 1000);
    try {
      await pool.run({ kind: 'test:sleep', args: [2500] });
      const slow = pool.run({ kind: 'test:sleep', args: [300] });
      const short = Array.from({ length: 5 }, () => pool.run({ kind: 'test:pid', args: [1] }));
      await expect(Promise.all([slow, ...short])).resolves.toHaveLength(6);
      expect(pool.expectedWaitMs()).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('counts a worker free once its running job has had its time: a slow job on one worker does not refuse work for the other', async () => {
    // Two workers, a 300 ms budget; the slow kind measured at >= 540 ms (100 + 0.1 × 4,400), the short kind
    // at ~100-200. A slow job runs on one worker, a short one on the other: the next job waits < 100 ms for the
    // second worker and is admitted. Every job ahead summed over both workers (>= 630 / 2) refused it.
    const pool = queuePool(2, 300);
    try {
      // both workers up: two jobs at once answered by two processes
      for (const until = Date.now() + 30_000; ; ) {
        const pids = await Promise.all([0, 1].map(() => pool.run<number>({ kind: 'test:pid', args: [200] })));
        if (new Set(pids).size === 2) break;
        if (Date.now() > until) throw new Error('the second worker did not start within 30 s');
      }
      await pool.run({ kind: 'test:sleep', args: [4_500] });
      const slow = pool.run({ kind: 'test:sleep', args: [3_000] });
      const short = pool.run({ kind: 'test:pid', args: [400] });
      expect(pool.stats()).toMatchObject({ active: 2, queued: 0 });
      await expect(pool.run({ kind: 'test:pid', args: [1] })).resolves.toBeTypeOf('number');
      await Promise.all([slow, short]);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('refuses a job with EngineBusyError when every worker is busy and the queue is full', async () => {
    const pool = new WorkerPool({ size: 1, timeoutMs: 10_000, maxMemoryMb: 400, maxQueue: 1, testJobs: true });
    try {
      const first = pool.run({ kind: 'test:sleep', args: [300] });
      const second = pool.run({ kind: 'test:sleep', args: [10] });
      const third = pool.run({ kind: 'test:sleep', args: [10] }).catch((e: unknown) => e);
      expect(await third).toBeInstanceOf(EngineBusyError);
      await expect(Promise.all([first, second])).resolves.toEqual([300, 10]);
      await expect(pool.run({ kind: 'test:sleep', args: [1] })).resolves.toBe(1); // room again
    } finally {
      await pool.close();
    }
  });
});
