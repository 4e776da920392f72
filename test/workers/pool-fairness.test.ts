// The pool shares its workers between tenants: a freed worker takes the oldest job of the tenant with the
// fewest jobs running (so one tenant's deep queue does not starve another's single job), and a tenant
// whose jobs are slow (hostile files, huge values) may hold every worker but one, so another tenant's
// job starts at once. Deterministic: every job is held in its worker until the test releases it.
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/workers/pool.js';
import { heldJobs } from '../helpers/held-jobs.js';

describe('worker pool fairness between tenants', () => {
  const held = heldJobs();
  const pool = new WorkerPool({
    size: 2,
    timeoutMs: 60_000,
    maxMemoryMb: 512,
    maxQueue: 100,
    testJobs: true,
    testHoldDir: held.dir,
  });
  afterAll(async () => {
    await pool.close();
    held.cleanup();
  });
  const run = (tenant: string, order?: string[], label?: string) =>
    pool.run({ kind: 'test:pid', args: [0] }, undefined, 'interactive', tenant).then((pid) => {
      if (order && label) order.push(label);
      return pid as number;
    });
  /** Both workers started, each released at once: afterwards the pool has two ready workers. */
  let warmed = 0;
  const warm = async () => {
    // a tenant of its own each time: jobs held while the second worker starts count as slow ones
    const tenant = `warm-${++warmed}`;
    const jobs = [run(tenant), run(tenant)];
    const a = await held.next();
    const b = await held.next([a]);
    held.release(a);
    held.release(b);
    await Promise.all(jobs);
  };

  it('gives a freed worker to the tenant with the fewest jobs running', async () => {
    await warm();
    const order: string[] = [];
    const jobs = [run('x', order, 'x0'), run('x', order, 'x1')];
    const a = await held.next();
    const b = await held.next([a]);
    jobs.push(run('x', order, 'x2'), run('x', order, 'x3'), run('y', order, 'y1'));
    expect(pool.stats().queued).toBe(3);
    held.release(a);
    // the freed worker takes y1 (y runs nothing), not x2 (queued first, but x already runs one)
    const c = await held.next([b]);
    expect(order).toEqual(['x0']);
    held.release(b);
    held.release(c);
    for (let i = 0; i < 2; i++) held.release(await held.next());
    await Promise.all(jobs);
    expect(order.indexOf('y1')).toBeLessThan(order.indexOf('x2'));
  });

  it('keeps one worker for others from a tenant whose jobs are slow, but not from one whose jobs are quick', async () => {
    await warm();
    // "slow" once held a worker for 150 ms: its average is past the threshold
    const first = run('slow');
    const p = await held.next([], 10_000);
    await new Promise((r) => setTimeout(r, 150));
    held.release(p);
    await first;

    const jobs = [run('slow'), run('slow'), run('slow')];
    const a = await held.next([], 10_000);
    // a worker is free, yet slow's next jobs wait: it holds its share (all but one)
    expect(pool.stats()).toMatchObject({ active: 1, queued: 2 });
    jobs.push(run('other'));
    const b = await held.next([a], 10_000); // another tenant's job starts at once on the kept worker
    expect(pool.stats()).toMatchObject({ active: 2, queued: 2 });
    held.release(b);
    held.release(a);
    for (let i = 0; i < 2; i++) held.release(await held.next([], 10_000));
    await Promise.all(jobs);

    // a quick tenant may take both workers
    const quick = [run('quick'), run('quick')];
    const q1 = await held.next([], 10_000);
    const q2 = await held.next([q1], 10_000);
    expect(pool.stats()).toMatchObject({ active: 2, queued: 0 });
    held.release(q1);
    held.release(q2);
    await Promise.all(quick);
  });
});
