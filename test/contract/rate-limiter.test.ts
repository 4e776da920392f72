import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import type { Clock } from '../../src/ports/clock.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.js';

const redisUrl = process.env.TEST_REDIS_URL;

/** A clock the tests move by hand, so "a new window" needs no sleeping. */
class ManualClock implements Clock {
  // Mid-window start (xx:xx:30.000 for 60 s windows) so a test never straddles a boundary by accident.
  t = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  now() {
    return new Date(this.t);
  }
}

interface LimiterCase {
  name: string;
  enabled: boolean;
  /** `shared`: whether two instances made by `make` count together (true for a shared store). */
  shared: boolean;
  make(clock: Clock): RateLimiter;
}

// Unique per run: parallel CI runs on one Redis never see each other's counters.
const runPrefix = `formcast-test:${randomBytes(6).toString('hex')}:`;

const LIMITERS: LimiterCase[] = [
  { name: 'MemoryRateLimiter', enabled: true, shared: false, make: (clock) => new MemoryRateLimiter(clock) },
  {
    name: redisUrl ? 'RedisRateLimiter' : 'RedisRateLimiter (skipped: TEST_REDIS_URL not set)',
    enabled: Boolean(redisUrl),
    shared: true,
    make: (clock) => new RedisRateLimiter(redisUrl!, { clock, keyPrefix: runPrefix }),
  },
];

for (const c of LIMITERS) {
  describe.skipIf(!c.enabled)(`RateLimiter contract: ${c.name}`, () => {
    const made: RateLimiter[] = [];
    const make = (clock: Clock) => {
      const l = c.make(clock);
      made.push(l);
      return l;
    };
    afterAll(async () => {
      await Promise.all(made.map((l) => l.close?.()));
    });
    const key = () => `key_${randomBytes(6).toString('hex')}`;

    it('counts hits within a window', async () => {
      const limiter = make(new ManualClock());
      const k = key();
      expect(await limiter.hit(k, 3, 60)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 30 });
      expect((await limiter.hit(k, 3, 60)).remaining).toBe(1);
      expect((await limiter.hit(k, 3, 60)).remaining).toBe(0);
    });

    it('refuses past the limit with remaining 0 and a reset in the future', async () => {
      const clock = new ManualClock();
      const limiter = make(clock);
      const k = key();
      for (let i = 0; i < 2; i++) expect((await limiter.hit(k, 2, 60)).allowed).toBe(true);
      clock.t += 12_500;
      const refused = await limiter.hit(k, 2, 60);
      expect(refused.allowed).toBe(false);
      expect(refused.remaining).toBe(0);
      expect(refused.resetSeconds).toBe(18);
    });

    it('keeps separate keys independent', async () => {
      const limiter = make(new ManualClock());
      const [a, b] = [key(), key()];
      await limiter.hit(a, 1, 60);
      expect((await limiter.hit(a, 1, 60)).allowed).toBe(false);
      expect(await limiter.hit(b, 1, 60)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it('starts a fresh count when a new window begins', async () => {
      const clock = new ManualClock();
      const limiter = make(clock);
      const k = key();
      await limiter.hit(k, 1, 60);
      expect((await limiter.hit(k, 1, 60)).allowed).toBe(false);
      clock.t += 30_000; // exactly the next window's start
      expect(await limiter.hit(k, 1, 60)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 60 });
    });

    it.skipIf(!c.shared)('shares the count between two instances', async () => {
      const clock = new ManualClock();
      const [one, two] = [make(clock), make(clock)];
      const k = key();
      expect((await one.hit(k, 3, 60)).remaining).toBe(2);
      expect((await two.hit(k, 3, 60)).remaining).toBe(1);
      expect((await one.hit(k, 3, 60)).remaining).toBe(0);
      expect((await two.hit(k, 3, 60)).allowed).toBe(false);
    });
  });
}

// A loaded machine (or a busy Redis) makes answers slow, not absent: the limiter must wait for them
// instead of switching itself off. CLIENT PAUSE holds every client's commands on a real Redis for a
// known time, longer than the old 250 ms budget and well within the current one: deterministic.
describe.skipIf(!redisUrl)(`RedisRateLimiter under load${redisUrl ? '' : ' (skipped: TEST_REDIS_URL not set)'}`, () => {
  it('keeps counting when Redis answers slowly instead of failing open', async () => {
    const limiter = new RedisRateLimiter(redisUrl!, { clock: new ManualClock(), keyPrefix: runPrefix });
    const admin = new Redis(redisUrl!);
    try {
      const k = `slow_${randomBytes(6).toString('hex')}`;
      expect((await limiter.hit(k, 3, 60)).remaining).toBe(2); // connected and counting
      await admin.call('CLIENT', 'PAUSE', '600');
      expect(await limiter.hit(k, 3, 60)).toMatchObject({ allowed: true, remaining: 1 });
      expect((await limiter.hit(k, 3, 60)).remaining).toBe(0);
      expect((await limiter.hit(k, 3, 60)).allowed).toBe(false);
    } finally {
      await limiter.close();
      admin.disconnect();
    }
  });
});

// Runs without a Redis: the fail-open policy is a behaviour of the adapter, not of a live server.
describe('RedisRateLimiter when Redis is unreachable', () => {
  it('allows the request, logs one warning, and answers within the command timeout', async () => {
    const warnings: unknown[] = [];
    // Port 9 (discard) on loopback: nothing listens there, so connections are refused at once.
    const limiter = new RedisRateLimiter('redis://127.0.0.1:9', {
      clock: new ManualClock(),
      log: { warn: (...args: unknown[]) => void warnings.push(args) } as never,
      commandTimeoutMs: 200,
    });
    try {
      const started = Date.now();
      const first = await limiter.hit('k', 1, 60);
      const second = await limiter.hit('k', 1, 60);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(first).toEqual({ allowed: true, limit: 1, remaining: 1, resetSeconds: 30 });
      expect(second.allowed).toBe(true);
      expect(warnings).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });
});
