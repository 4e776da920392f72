// Each account's budget of unpaid work (issue 27, item 3): counted in units and admissions on a fake clock
// and a fake timer queue, never in real time.
import { describe, expect, it } from 'vitest';
import { UnpaidWorkBudget, type UnpaidWorkOptions } from '../../src/adapters/admission/unpaid-work.js';
import { ChainedAdmission } from '../../src/adapters/admission/chained-admission.js';
import { type EndTurn, type RequestAdmission, UnpaidWorkLimitError } from '../../src/ports/request-admission.js';

/** A budget on a clock and timers the test moves by hand: `advance(ms)` runs the timers due by then. */
function budget(opts: Partial<UnpaidWorkOptions> = {}) {
  let t = 0;
  let timers: { at: number; f: () => void }[] = [];
  const events: string[] = [];
  const b = new UnpaidWorkBudget({
    perMinute: 60, // one unit a second
    burst: 3,
    maxWaitMs: 10_000,
    now: () => t,
    schedule: (f, ms) => {
      const timer = { at: t + ms, f };
      timers.push(timer);
      return () => {
        timers = timers.filter((x) => x !== timer);
      };
    },
    onHeld: (outcome, ms) => events.push(`${outcome} ${ms}`),
    onCharged: (units) => events.push(`charged ${units}`),
    ...opts,
  });
  const advance = async (ms: number) => {
    const end = t + ms;
    for (;;) {
      const next = timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      timers = timers.filter((x) => x !== next);
      t = next.at;
      next.f();
      await settle();
    }
    t = end;
    await settle();
  };
  return { b, advance, events };
}

const settle = () => new Promise((r) => setImmediate(r));
const never = () => new AbortController().signal;

/** `n` requests of `account`: the turns of those let go so far, in order, and the errors of the others. */
function send(b: RequestAdmission, account: string, n: number, signal = never()) {
  const ends: EndTurn[] = [];
  const errors: unknown[] = [];
  for (let i = 0; i < n; i++)
    b.admit(account, signal).then(
      (end) => ends.push(end),
      (err) => errors.push(err),
    );
  return { ends, errors };
}

/** `n` requests of `account` that each end unpaid as soon as they are let go (a closed loop of refusals). */
async function refused(b: UnpaidWorkBudget, account: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) (await b.admit(account, never()))(1);
}

describe('budget of unpaid work', () => {
  it('never holds an account whose requests are paid, however many it sends', async () => {
    const { b } = budget();
    const r = send(b, 'acc_a', 500);
    await settle();
    expect(r.ends).toHaveLength(500);
    for (const end of r.ends) end(0);
    expect(b.level('acc_a')).toBe(3);
    expect(send(b, 'acc_a', 1).ends).toHaveLength(0); // resolved on the next turn of the loop
    await settle();
    expect(b.holding('acc_a')).toBe(0);
  });

  it('lets an account spend its burst of refusals, then holds its next request', async () => {
    const { b, events } = budget();
    await refused(b, 'acc_h', 3);
    expect(b.level('acc_h')).toBe(0);
    const next = send(b, 'acc_h', 1);
    await settle();
    expect(next.ends).toHaveLength(0);
    expect(b.holding('acc_h')).toBe(1);
    expect(events).toEqual(['charged 1', 'charged 1', 'charged 1']);
  });

  it("holds only the account past its budget: another account's requests go on", async () => {
    const { b } = budget();
    await refused(b, 'acc_h', 3);
    send(b, 'acc_h', 2);
    const victim = send(b, 'acc_v', 4);
    await settle();
    expect(victim.ends).toHaveLength(4);
    expect(b.holding('acc_h')).toBe(2);
  });

  it('lets held requests go one per unit refilled, in the order they came', async () => {
    const { b, advance, events } = budget();
    await refused(b, 'acc_h', 3);
    const held = send(b, 'acc_h', 3);
    await advance(999);
    expect(held.ends).toHaveLength(0);
    await advance(1);
    expect(held.ends).toHaveLength(1); // one unit back after a second: one goes, having taken it
    expect(b.holding('acc_h')).toBe(2);
    await advance(1000);
    expect(held.ends).toHaveLength(2);
    await advance(1000);
    expect(held.ends).toHaveLength(3);
    expect(events.filter((e) => e.startsWith('admitted'))).toEqual(['admitted 1000', 'admitted 2000', 'admitted 3000']);
  });

  it('gives the unit back to a held request that ends paid, and lets the next one go at once', async () => {
    const { b, advance } = budget();
    await refused(b, 'acc_h', 3);
    const held = send(b, 'acc_h', 2);
    await advance(1000);
    expect(held.ends).toHaveLength(1);
    held.ends[0]!(0); // a successful render: no unit spent
    await settle();
    expect(held.ends).toHaveLength(2);
    held.ends[1]!(1); // a refusal: the unit it took is spent
    expect(b.level('acc_h')).toBe(0);
  });

  it('counts refusals that ended while others were in flight as a debt, held off before anyone goes', async () => {
    const { b, advance } = budget();
    const burst = send(b, 'acc_h', 5); // all in flight before any ends: the bucket is still full
    await settle();
    expect(burst.ends).toHaveLength(5);
    for (const end of burst.ends) end(1);
    expect(b.level('acc_h')).toBe(-2);
    const next = send(b, 'acc_h', 1);
    await advance(2999);
    expect(next.ends).toHaveLength(0);
    await advance(1);
    expect(next.ends).toHaveLength(1);
  });

  it('refuses a request held past the wait with UnpaidWorkLimitError and Retry-After, and forgets it', async () => {
    const { b, advance, events } = budget({ perMinute: 6, maxWaitMs: 5_000 }); // a unit every 10 s
    await refused(b, 'acc_h', 3);
    const held = send(b, 'acc_h', 1);
    await advance(5_000);
    expect(held.ends).toHaveLength(0);
    expect(held.errors).toHaveLength(1);
    const err = held.errors[0] as UnpaidWorkLimitError;
    expect(err).toBeInstanceOf(UnpaidWorkLimitError);
    expect(err.retryAfterSeconds).toBe(5); // half a unit refilled, the other half in 5 s
    expect(b.holding('acc_h')).toBe(0);
    expect(events.at(-1)).toBe('rate_limited 5000');
  });

  it('drops a held request whose client left, without spending a unit', async () => {
    const { b, advance, events } = budget();
    await refused(b, 'acc_h', 3);
    const gone = new AbortController();
    const held = send(b, 'acc_h', 1, gone.signal);
    const behind = send(b, 'acc_h', 1);
    await settle();
    gone.abort(new Error('client left'));
    await settle();
    expect(held.errors).toHaveLength(1);
    expect(events.at(-1)).toBe('left 0');
    await advance(1000);
    expect(behind.ends).toHaveLength(1);
  });

  it('refills to the burst and no further', async () => {
    const { b, advance } = budget();
    await refused(b, 'acc_h', 2);
    expect(b.level('acc_h')).toBe(1);
    await advance(60_000);
    expect(b.level('acc_h')).toBe(3);
  });

  it('ends a turn once, however often the end is called', async () => {
    const { b } = budget();
    const end = await b.admit('acc_h', never());
    end(1);
    end(1);
    expect(b.level('acc_h')).toBe(2);
  });
});

describe('chained admission', () => {
  it('tells both admissions the turn ended, with its unpaid work, and ends the first when the second refuses', async () => {
    const log: string[] = [];
    const first: RequestAdmission = {
      admit: async (a) => (units) => log.push(`first ${a} ${units}`),
    };
    const second: RequestAdmission = {
      admit: async (a) => {
        if (a === 'acc_x') throw new Error('refused');
        return (units) => log.push(`second ${a} ${units}`);
      },
    };
    const chain = new ChainedAdmission(first, second);
    (await chain.admit('acc_a', never()))(1);
    await expect(chain.admit('acc_x', never())).rejects.toThrow('refused');
    expect(log).toEqual(['second acc_a 1', 'first acc_a 1', 'first acc_x undefined']);
  });
});
