// The published retry schedule (README, docs/decisions.md): the first attempt at once, then after each
// failure wait 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 20 h and 24 h: 10 attempts over about 3 days
// (71 h 35 min). Each wait gets +/-10 % jitter so that deliveries failing together do not retry in step.

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/** Wait before attempt n+1 after attempt n (1-based) failed. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * S,
  5 * MIN,
  30 * MIN,
  2 * H,
  5 * H,
  10 * H,
  10 * H,
  20 * H,
  24 * H,
];

/** Attempts a delivery gets before it is given up (failed). */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

const JITTER = 0.1;

/** Delay before the next attempt after `attempts` attempts, or null when the schedule is used up. */
export function nextRetryDelayMs(attempts: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
