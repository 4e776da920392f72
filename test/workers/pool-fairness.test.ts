// The pool shares its workers between tenants (the policy itself is tested on a fake clock in
// fair-share.test.ts): here, with real worker processes, that a freed worker goes to another tenant's job
// before a busy tenant's next one, and that a tenant holds every worker but one while another tenant is
// active, and the whole pool once it is alone. Deterministic: every job is held in its worker until the
// test releases it, and the scheduler's clock is the test's.
import { afterAll, describe, expect, it } from 'vitest';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';

describe('worker pool fairness between tenants', () => {
  const held = heldJobs();
  let now = 0;
  /** Moves the scheduler's clock far enough that every tenant so far counts as quiet. */
  const quiet = () => {
    now += 60_000;
  };
  const pool = heldPool(held, { size: 2, maxQueue: 100, now: () => now });
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
  const warm = async () => {
    quiet();
    const jobs = [run('warm'), run('warm')];
    const a = await held.next();
    const b = await held.next([a]);
    held.release(a);
    held.release(b);
    await Promise.all(jobs);
    quiet();
  };

  it("gives a freed worker to another tenant's job before a busy tenant's next one", async () => {
    await warm();
    const order: string[] = [];
    const jobs = [run('x', order, 'x0'), run('x', order, 'x1')];
    const a = await held.next();
    const b = await held.next([a]); // x alone: it takes both workers
    jobs.push(run('x', order, 'x2'), run('x', order, 'x3'), run('y', order, 'y1'));
    expect(pool.stats().queued).toBe(3);
    now += 50;
    held.release(a);
    // the freed worker takes y1 (queued after x2 and x3, but x already holds a worker and used more time)
    const c = await held.next([b]);
    // one of x's first two jobs is done (which one reached its hold point first is the workers' race)
    expect(order).toHaveLength(1);
    expect(['x0', 'x1']).toContain(order[0]);
    held.release(b);
    held.release(c);
    for (let i = 0; i < 2; i++) held.release(await held.next());
    await Promise.all(jobs);
    expect(order.indexOf('y1')).toBeLessThan(order.indexOf('x2'));
  });

  it('keeps one worker free for a tenant that was active just now, and lets a tenant alone use all', async () => {
    await warm();
    // v rendered a moment ago (its next request is on its way)
    const v0 = run('v');
    held.release(await held.next([], 10_000));
    await v0;

    const jobs = [run('h'), run('h'), run('h')];
    const a = await held.next([], 10_000);
    // a worker is free, yet h's next jobs wait: it holds its share (all but one)
    expect(pool.stats()).toMatchObject({ active: 1, queued: 2 });
    jobs.push(run('v'));
    const b = await held.next([a], 10_000); // v's job starts at once on the kept worker
    expect(pool.stats()).toMatchObject({ active: 2, queued: 2 });
    held.release(b);
    held.release(a);
    for (let i = 0; i < 2; i++) held.release(await held.next([], 10_000));
    await Promise.all(jobs);

    // once v has been quiet for a while, h may take both workers
    quiet();
    const alone = [run('h'), run('h')];
    const q1 = await held.next([], 10_000);
    const q2 = await held.next([q1], 10_000);
    expect(pool.stats()).toMatchObject({ active: 2, queued: 0 });
    held.release(q1);
    held.release(q2);
    await Promise.all(alone);
  });

  it('gives the kept worker to the waiting tenant once the other has gone quiet, without waiting for a job to end', async () => {
    await warm();
    const v0 = run('v');
    held.release(await held.next([], 10_000));
    await v0;
    const jobs = [run('h'), run('h')];
    const a = await held.next([], 10_000);
    expect(pool.stats()).toMatchObject({ active: 1, queued: 1 });
    quiet(); // v has been quiet for a minute; h's first job still runs
    const b = await held.next([a], 10_000); // the pool looks again by itself
    expect(pool.stats()).toMatchObject({ active: 2, queued: 0 });
    held.release(a);
    held.release(b);
    await Promise.all(jobs);
  });
});
