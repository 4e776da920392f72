import type { RateLimiter, RateLimitResult } from '../../ports/rate-limiter.js';
import type { Clock } from '../../ports/clock.js';

/** In-process fixed windows; old windows are dropped as new ones start, so memory stays bounded by active keys. */
export class MemoryRateLimiter implements RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly clock: Clock) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
    const now = this.clock.now().getTime();
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (this.windows.size > 100_000) this.prune(start);
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    return { allowed: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), resetSeconds };
  }

  private prune(currentStart: number) {
    for (const [k, w] of this.windows) if (w.start !== currentStart) this.windows.delete(k);
  }
}
