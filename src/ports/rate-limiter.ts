/**
 * Fixed-window request counter per key. `hit` counts one request and says whether it is allowed.
 * The memory adapter serves one instance; the Redis adapter shares the window across instances.
 */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult>;
  close?(): Promise<void>;
}
