import type { EndTurn } from '../../ports/request-admission.js';

/**
 * A request an admission holds before its body is read: let go by the admission (`settle` then
 * `resolve`), or dropped when its wait is over or its client leaves, whichever comes first.
 */
export interface HeldRequest {
  /** when it was held (the admission's clock), for the metrics of how long it waited */
  since: number;
  resolve(end: EndTurn): void;
  reject(err: unknown): void;
  /** Stops the deadline and the watch on the client (the request was let go or dropped). */
  settle(): void;
}

/** Runs `f` after `ms` and returns what cancels it. */
export type Schedule = (f: () => void, ms: number) => () => void;

export const timerSchedule: Schedule = (f, ms) => {
  const t = setTimeout(f, ms);
  return () => clearTimeout(t);
};

export interface HoldOptions {
  since: number;
  signal: AbortSignal;
  maxWaitMs: number;
  schedule: Schedule;
  resolve(end: EndTurn): void;
  reject(err: unknown): void;
  /** The wait is over (the admission drops it with its own error). */
  onTimeout(held: HeldRequest): void;
  /** The client left while it waited. */
  onAbort(held: HeldRequest): void;
}

export function holdRequest(o: HoldOptions): HeldRequest {
  const onAbort = () => o.onAbort(held);
  const cancel = o.schedule(() => o.onTimeout(held), o.maxWaitMs);
  const held: HeldRequest = {
    since: o.since,
    resolve: o.resolve,
    reject: o.reject,
    settle: () => {
      cancel();
      o.signal.removeEventListener('abort', onAbort);
    },
  };
  o.signal.addEventListener('abort', onAbort, { once: true });
  return held;
}
