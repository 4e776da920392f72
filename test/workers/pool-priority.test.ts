// Interactive renders go before background work (async renders, batch items): a job queued by a request
// is the next to start, whatever the depth of the background queue. Deterministic: every job is held in
// its worker until the test releases it (held-jobs), so the order of dispatch is all that is measured.
import { afterAll, describe, expect, it } from 'vitest';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';

describe('worker pool priorities', () => {
  const held = heldJobs();
  const pool = heldPool(held, { maxQueue: 1 });
  afterAll(async () => {
    await pool.close();
    held.cleanup();
  });

  it('starts an interactive job before every queued background job, and does not refuse it for them', async () => {
    const order: string[] = [];
    const run = (label: string, priority: 'interactive' | 'background') =>
      pool.run({ kind: 'test:pid', args: [0] }, undefined, priority).then(() => order.push(label));
    const jobs = [run('bg-1', 'background')];
    const first = await held.next(); // bg-1 holds the only worker
    for (let i = 2; i <= 5; i++) jobs.push(run(`bg-${i}`, 'background'));
    expect(pool.stats().queued).toBe(4);
    // four background jobs wait and the interactive queue's cap is 1: still admitted
    jobs.push(run('interactive', 'interactive'));
    held.release(first);
    for (let i = 0; i < 5; i++) held.release(await held.next());
    await Promise.all(jobs);
    expect(order).toEqual(['bg-1', 'interactive', 'bg-2', 'bg-3', 'bg-4', 'bg-5']);
  });
});
