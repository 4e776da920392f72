import type { Clock } from '../../ports/clock.js';

/**
 * The service's clock: the database's time, carried between readings by the monotonic timer.
 *
 * Instances compare each other's liveness rows, leases and schedules, so they must read one time: with
 * each on its own wall clock, an instance 20 s ahead took a live one's renders for abandoned. Between
 * readings the monotonic timer carries the time, so a step of this machine's clock changes nothing
 * until the next reading; a reading behind our estimate is only followed when `followBackward` (the
 * database is another machine's clock: PostgreSQL). SQLite's time is this machine's own wall clock, so a
 * backward step there is not followed: work scheduled before it is not stalled for the step's length.
 */
export class DbClock implements Clock {
  private anchorMs: number;
  private anchorMono: number;

  constructor(
    dbMs: number,
    monoAtReading: number,
    private readonly followBackward: boolean,
    private readonly mono: () => number = () => performance.now(),
  ) {
    this.anchorMs = dbMs;
    this.anchorMono = monoAtReading;
  }

  now(): Date {
    return new Date(Math.round(this.anchorMs + this.mono() - this.anchorMono));
  }

  /** A new reading of the database's time, taken at `monoAtReading` on the monotonic timer. */
  sync(dbMs: number, monoAtReading: number): void {
    const estimate = this.anchorMs + monoAtReading - this.anchorMono;
    if (dbMs < estimate && !this.followBackward) return;
    this.anchorMs = dbMs;
    this.anchorMono = monoAtReading;
  }
}

export interface DbClockHandle {
  clock: DbClock;
  stop(): void;
}

/**
 * Reads `readTime` now and every `everyMs`, keeping a DbClock on it. A reading's moment is the middle
 * of its round trip; failed readings leave the clock running on the monotonic timer.
 */
export async function startDbClock(
  readTime: () => Promise<number>,
  opts: { everyMs: number; followBackward: boolean; onError: (err: unknown) => void },
): Promise<DbClockHandle> {
  const read = async () => {
    const before = performance.now();
    const dbMs = await readTime();
    return { dbMs, mono: (before + performance.now()) / 2 };
  };
  const first = await read();
  const clock = new DbClock(first.dbMs, first.mono, opts.followBackward);
  const timer = setInterval(() => {
    read().then(
      (r) => clock.sync(r.dbMs, r.mono),
      (err) => opts.onError(err),
    );
  }, opts.everyMs);
  timer.unref();
  return { clock, stop: () => clearInterval(timer) };
}
