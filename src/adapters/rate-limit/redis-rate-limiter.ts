import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateLimiter, RateLimitResult } from '../../ports/rate-limiter.js';
import type { Clock } from '../../ports/clock.js';

/** The subset of ioredis we call (design rule 2). */
export type RedisLike = Pick<Redis, 'eval' | 'quit' | 'disconnect' | 'on' | 'status'>;

/** Connection states in which Redis is known to be away: answer at once instead of queueing the hit. */
const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/** Default budget of one hit on a connected Redis (REDIS_TIMEOUT_MS). */
const DEFAULT_REDIS_TIMEOUT_MS = 2_000;

export interface RedisRateLimiterOptions {
  clock: Clock;
  log?: Pick<Logger, 'warn'>;
  /** Namespace in a shared Redis; also lets parallel test runs stay apart. */
  keyPrefix?: string;
  /**
   * Longest a request waits for a connected Redis before failing open. Generous (2 s by default): a
   * healthy Redis answers in ~1 ms, but on a loaded machine (or a Redis busy with a slow command)
   * answers arrive late, not never; a short budget (it was 250 ms) turned rate limiting off exactly
   * when the machine was busiest. A Redis known to be down fails open at once, without this wait.
   */
  commandTimeoutMs?: number;
}

/**
 * INCR and PEXPIRE in one script, so a counter can never be left without an expiry (a crash between two
 * separate commands would leave a key that limits forever). The expiry is the window plus a second,
 * which outlives the window even with small clock differences between instances.
 */
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Between two "Redis is down" warnings: enough to be seen, not one line per request. */
const WARN_EVERY_MS = 30_000;

/**
 * Fixed windows shared by every instance through Redis: key `${prefix}${key}:${windowStart}`.
 * Window boundaries come from the injected clock (instances are NTP-synced; a skew of a few ms only moves
 * a handful of requests across a boundary), which keeps the adapter testable like the memory one.
 *
 * Failure policy: FAIL OPEN on connection errors only. While the connection is down (refused, reset,
 * reconnecting) the request is allowed at once and a warning is logged (throttled). A connected Redis is
 * waited for up to `commandTimeoutMs` (2 s), so slowness under load never switches limiting off; only a
 * Redis silent for that long is treated as down. Rate limiting protects fairness, not correctness (quotas
 * are enforced in the database), so an outage of Redis must not take the API down with it.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: RedisLike;
  private readonly clock: Clock;
  private readonly log?: Pick<Logger, 'warn'>;
  private readonly prefix: string;
  private lastWarn = -Infinity;

  constructor(url: string, options: RedisRateLimiterOptions) {
    this.clock = options.clock;
    this.log = options.log;
    this.prefix = options.keyPrefix ?? 'formcast:rl:';
    const timeout = options.commandTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.redis = new Redis(url, {
      commandTimeout: timeout,
      connectTimeout: 2_000,
      // One try per request: the timeout above is the whole budget; retries would multiply it.
      maxRetriesPerRequest: 1,
      // Hits made before the first connection completes wait in ioredis's queue (within the timeout);
      // once a connection has failed, hit() answers without queueing (see DOWN_STATES).
      // Keep reconnecting in the background, at most every 2 s, so the limiter heals by itself.
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    // Without a listener ioredis prints every connection error; we report them through the logger.
    this.redis.on('error', (err: Error) => this.warn(err));
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
    const now = this.clock.now().getTime();
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    let count: number;
    if (DOWN_STATES.has(this.redis.status)) {
      this.warn(new Error(`Redis connection ${this.redis.status}`));
      return { allowed: true, limit, remaining: limit, resetSeconds };
    }
    try {
      count = Number(await this.redis.eval(HIT_SCRIPT, 1, `${this.prefix}${key}:${start}`, windowMs + 1000));
    } catch (err) {
      this.warn(err);
      return { allowed: true, limit, remaining: limit, resetSeconds };
    }
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private warn(err: unknown): void {
    const now = performance.now(); // an interval: the monotonic timer, not the clock
    if (now - this.lastWarn < WARN_EVERY_MS) return;
    this.lastWarn = now;
    this.log?.warn({ err }, 'rate limiter: Redis unavailable, allowing requests (fail-open)');
  }
}
