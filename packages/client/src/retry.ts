import { parseRetryAfter } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 disables retries). */
  maxAttempts?: number;
  /**
   * The longest wait, in seconds, the client accepts (default 60): an answer asking for a longer wait
   * is returned to the caller (as a FormcastError with `retryAfter`) instead of blocking.
   */
  maxRetryAfter?: number;
  /** Wait used when an answer gives no Retry-After: 0.5 s, 1 s, 2 s ... (default base 500 ms). */
  backoffMs?: number;
  /** How to wait (default setTimeout); tests inject their own. */
  sleep?: (ms: number) => Promise<void>;
}

type Fetch = (request: Request) => Promise<Response>;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Whether an answer is worth the same request again, after a wait. Only answers that say the work was
 * not done and will be possible shortly: 503 (workers busy, storage away), 429 RATE_LIMITED (per-minute
 * limit), 409 IDEMPOTENCY_KEY_IN_USE (the first request with this key is still running). Never
 * RENDER_LIMIT_REACHED: the monthly quota comes back next month, not within a retry loop.
 */
async function retryable(response: Response): Promise<boolean> {
  if (response.status === 503) return true;
  if (response.status !== 429 && response.status !== 409) return false;
  const code = await response
    .clone()
    .json()
    .then((b: unknown) => (b as { error?: { code?: string } } | null)?.error?.code)
    .catch(() => undefined);
  if (response.status === 429) return code === 'RATE_LIMITED' || code === undefined;
  return code === 'IDEMPOTENCY_KEY_IN_USE';
}

/**
 * Network failures are retried only where doing the work twice cannot happen: reads, and writes that
 * carry an Idempotency-Key (the server replays the first answer).
 */
function safeToResend(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
}

/** A fetch that retries as RetryOptions say, honouring Retry-After. */
export function retryingFetch(fetchImpl: Fetch, options: RetryOptions = {}): Fetch {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const maxRetryAfter = options.maxRetryAfter ?? 60;
  const backoffMs = options.backoffMs ?? 500;
  const sleep = options.sleep ?? sleepFor;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      let response: Response;
      try {
        // each attempt sends a copy: a body can be read once
        response = await fetchImpl(last ? request : request.clone());
      } catch (err) {
        if (last || !safeToResend(request) || request.signal?.aborted) throw err;
        await sleep(backoffMs * 2 ** (attempt - 1));
        continue;
      }
      if (last || !(await retryable(response))) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > maxRetryAfter) return response;
      await response.body?.cancel();
      await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoffMs * 2 ** (attempt - 1));
    }
  };
}
