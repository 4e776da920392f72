import { FormcastError } from './errors.js';

export interface WaitOptions<E> {
  /** Give up after this long, with FormcastError TIMEOUT (default 300,000 ms). */
  timeoutMs?: number;
  /** The first wait between two reads (default 250 ms); it grows by half each time... */
  intervalMs?: number;
  /** ...up to this (default 5,000 ms). */
  maxIntervalMs?: number;
  /** Stops waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * The webhook event that announces the end (verified with `verifyWebhook`), or a promise of it: the wait
   * ends as soon as it comes, and polls only every `maxIntervalMs` meanwhile as a safety net.
   */
  event?: E | PromiseLike<E>;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Read `read()` until `done` says so, waiting longer each time (backoff); a matching event (`isEnd`)
 * ends the wait at once with one last read. `what` names the thing in a TIMEOUT error.
 */
export async function pollUntil<T, E>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  isEnd: (event: E) => boolean,
  options: WaitOptions<E>,
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  const maxInterval = options.maxIntervalMs ?? 5000;
  let interval = options.event === undefined ? (options.intervalMs ?? 250) : maxInterval;
  let ended = false;
  let wake: () => void = () => {};
  if (options.event !== undefined)
    Promise.resolve(options.event).then(
      (event) => {
        if (isEnd(event)) {
          ended = true;
          wake();
        }
      },
      () => {}, // a receiver that failed leaves polling to finish the wait
    );
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    const left = deadline - Date.now();
    if (left <= 0)
      throw new FormcastError(`Gave up waiting for ${what}`, 0, 'TIMEOUT', undefined, undefined, undefined);
    if (!ended) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      await Promise.race([sleep(Math.min(interval, left), options.signal), woken]);
      wake = () => {};
    }
    options.signal?.throwIfAborted();
    interval = Math.min(maxInterval, Math.ceil(interval * 1.5));
  }
}
