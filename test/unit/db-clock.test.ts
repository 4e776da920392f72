import { describe, expect, it } from 'vitest';
import { DbClock } from '../../src/adapters/clock/db-clock.js';

describe('DbClock', () => {
  const at = Date.parse('2030-01-01T00:00:00Z');
  it('runs on the monotonic timer from a reading, and follows a later reading forward', () => {
    let mono = 1000;
    const clock = new DbClock(at, 1000, false, () => mono);
    mono = 3500;
    expect(clock.now().getTime()).toBe(at + 2500);
    clock.sync(at + 10_000, 3500); // the database is ahead of our estimate: follow it
    expect(clock.now().getTime()).toBe(at + 10_000);
  });

  it('follows a backward reading only when told to (PostgreSQL), never for the machine clock (SQLite)', () => {
    let mono = 0;
    const own = new DbClock(at, 0, false, () => mono);
    const other = new DbClock(at, 0, true, () => mono);
    mono = 1000;
    own.sync(at - 600_000, 1000);
    other.sync(at - 600_000, 1000);
    expect(own.now().getTime()).toBe(at + 1000);
    expect(other.now().getTime()).toBe(at - 600_000);
  });
});
