/** Time source, injectable so tests can move through months and retention periods. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
