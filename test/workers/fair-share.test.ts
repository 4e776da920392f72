// The pool's scheduler on a fake clock: who goes next is decided by the worker time each tenant used
// recently, and a tenant holds at most all workers but one while someone else waits or was active.
import { describe, expect, it } from 'vitest';
import { FairShare } from '../../src/workers/fair-share.js';

function scheduler(workers = 2, opts: { halfLifeMs?: number; activeMs?: number } = {}) {
  let now = 0;
  const share = new FairShare({ workers, now: () => now, ...opts });
  return {
    share,
    advance: (ms: number) => {
      now += ms;
    },
    /** One job of `tenant` that holds a worker for `ms`. */
    job(tenant: string | undefined, ms: number) {
      const at = share.started(tenant);
      now += ms;
      share.finished(tenant, at);
    },
  };
}

describe('fair share of the worker pool', () => {
  it('gives the next worker to the tenant that used the least worker time, not the one with fewer turns', () => {
    const s = scheduler(4);
    // heavy had 2 jobs of 50 ms, light 20 jobs of 1 ms: by turns light had more, by time far less
    for (let i = 0; i < 2; i++) s.job('heavy', 50);
    for (let i = 0; i < 20; i++) s.job('light', 1);
    expect(s.share.used('heavy')).toBeGreaterThan(s.share.used('light'));
    // heavy's job waits first in line; light's goes first
    expect(s.share.choose(['heavy', 'heavy', 'light'])).toBe(2);
  });

  it('takes each tenant oldest job first, and a tenant never seen before goes first', () => {
    const s = scheduler(4);
    s.job('a', 10);
    s.job('b', 5);
    expect(s.share.choose(['a', 'b', 'a', 'b'])).toBe(1);
    expect(s.share.choose(['a', 'b', 'new'])).toBe(2);
  });

  it('counts the time a running job has held its worker so far', () => {
    const s = scheduler(4);
    s.job('a', 30);
    const at = s.share.started('b'); // b's job has run 0 ms
    s.advance(1);
    expect(s.share.choose(['a', 'b'])).toBe(1);
    s.advance(100); // ... and now 101 ms, more than a's decayed 30
    expect(s.share.choose(['a', 'b'])).toBe(0);
    s.share.finished('b', at);
    expect(s.share.runningCount('b')).toBe(0);
  });

  it('forgets usage with the half-life', () => {
    const s = scheduler(2, { halfLifeMs: 1000 });
    s.job('a', 100);
    expect(s.share.used('a')).toBeCloseTo(100, 5);
    s.advance(1000);
    expect(s.share.used('a')).toBeCloseTo(50, 5);
    s.advance(2000);
    expect(s.share.used('a')).toBeCloseTo(12.5, 5);
    // an old heavy tenant and a recent light one: the heavy one's past no longer holds it back
    s.advance(10_000);
    s.job('b', 5);
    expect(s.share.choose(['b', 'a'])).toBe(1);
  });

  it('holds a tenant to all workers but one while another tenant waits', () => {
    const s = scheduler(3);
    s.share.started('h');
    s.share.started('h');
    // h runs 2 of 3: alone it may take the third...
    s.advance(5000);
    expect(s.share.choose(['h'])).toBe(0);
    // ...but not while v waits, even behind h in the queue, and whatever v used
    for (let i = 0; i < 10; i++) s.job('v', 100);
    s.advance(5000);
    expect(s.share.choose(['h', 'v'])).toBe(1);
    expect(s.share.choose(['h'], ['v'])).toBe(-1); // v waits in the other queue
  });

  it('holds it to its share while another tenant was active recently, and frees it after', () => {
    const s = scheduler(2, { activeMs: 1000 });
    s.job('v', 1); // the victim's last job ended just now; its next request is on its way
    s.share.started('h');
    expect(s.share.choose(['h'])).toBe(-1);
    s.advance(999);
    expect(s.share.choose(['h'])).toBe(-1);
    s.advance(1);
    expect(s.share.choose(['h'])).toBe(0); // v has gone quiet: h may use the whole pool
  });

  it('holds it to its share while another tenant runs a job', () => {
    const s = scheduler(3, { activeMs: 1000 });
    const at = s.share.started('v');
    s.share.started('h');
    s.share.started('h');
    s.advance(60_000); // v's job is long; still running
    expect(s.share.choose(['h'])).toBe(-1);
    s.share.finished('v', at);
    s.advance(1000);
    expect(s.share.choose(['h'])).toBe(0);
  });

  it('has no cap with one worker (there is no "all but one")', () => {
    const s = scheduler(1);
    s.job('v', 1);
    expect(s.share.choose(['h'])).toBe(0);
  });

  it('a cheap tenant finds a worker at every turn while another sends long jobs without pause', () => {
    // 2 workers; h keeps 8 jobs of 50 ms waiting; v sends one job of 1 ms at a time, each 2 ms after the
    // last ended. Whenever a worker frees, the scheduler picks; v must never wait behind an h job.
    const s = scheduler(2);
    const workers: ({ tenant: string; at: number; ends: number } | undefined)[] = [undefined, undefined];
    let now = 0;
    const hQueue = 8;
    let vWaitingSince: number | undefined = 0;
    let vNextAt = 0;
    let vJobs = 0;
    let worstVWait = 0;
    let hMs = 0;
    for (; now < 10_000; now++) {
      // end what is due
      workers.forEach((w, i) => {
        if (w && w.ends <= now) {
          s.share.finished(w.tenant, w.at);
          if (w.tenant === 'v') vNextAt = now + 2;
          workers[i] = undefined;
        }
      });
      if (vWaitingSince === undefined && vNextAt <= now && !workers.some((w) => w?.tenant === 'v')) vWaitingSince = now;
      // hand free workers out
      for (let i = 0; i < 2; i++) {
        if (workers[i]) continue;
        const waiting = [...Array(hQueue).fill('h'), ...(vWaitingSince !== undefined ? ['v'] : [])];
        const pick = s.share.choose(waiting);
        if (pick < 0) continue;
        const tenant = waiting[pick]!;
        const at = s.share.started(tenant);
        workers[i] = { tenant, at, ends: now + (tenant === 'v' ? 1 : 50) };
        if (tenant === 'v') {
          worstVWait = Math.max(worstVWait, now - vWaitingSince!);
          vWaitingSince = undefined;
          vJobs++;
        } else hMs += 50;
      }
      s.advance(1);
    }
    expect(worstVWait).toBe(0); // a worker was always kept for v
    expect(vJobs).toBeGreaterThan(3000); // one job per 3 ms: the rate it would have alone
    expect(hMs).toBeGreaterThan(9000); // and h still had one worker all along
  });
});
