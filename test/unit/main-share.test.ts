// The main-process share (issue 27): who may go on, counted in admissions on a fake clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MainShare, type MainShareOptions } from '../../src/adapters/admission/main-share.js';
import { meteredEngine } from '../../src/adapters/admission/metered-engine.js';
import { AdmissionTimeoutError } from '../../src/ports/request-admission.js';

function share(opts: Partial<MainShareOptions> = {}) {
  let t = 0;
  const s = new MainShare({ slots: 4, maxWaitMs: 10_000, now: () => t, busy: () => true, ...opts });
  return { s, advance: (ms: number) => (t += ms) };
}

const never = () => new AbortController().signal;

/** `n` admissions of `account`: the release functions of those admitted so far, in order. */
function admitMany(s: MainShare, account: string, n: number, signal = never()) {
  const released: (() => void)[] = [];
  const admitted: number[] = [];
  const pending = Array.from({ length: n }, (_, i) =>
    s.admit(account, signal).then((release) => {
      admitted.push(i);
      released.push(release);
    }),
  );
  return { released, admitted, pending };
}

const settle = () => new Promise((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe('main-process share', () => {
  it('never holds an account alone, however many requests it has in flight', async () => {
    const { s } = share();
    const h = admitMany(s, 'acc_h', 20);
    await settle();
    expect(h.admitted).toHaveLength(20);
  });

  it('holds nobody while the event loop is not busy', async () => {
    const { s, advance } = share({ busy: () => false });
    admitMany(s, 'acc_h', 6);
    await settle();
    advance(500);
    const v = admitMany(s, 'acc_v', 1);
    const more = admitMany(s, 'acc_h', 3);
    await settle();
    expect(v.admitted).toHaveLength(1);
    expect(more.admitted).toHaveLength(3);
  });

  it('admits the lighter account at once and holds the heavier to its part of the slots, in order', async () => {
    const { s, advance } = share();
    const h = admitMany(s, 'acc_h', 6); // alone: all six go on
    await settle();
    advance(200);
    const v = admitMany(s, 'acc_v', 3); // under an equal share: never waits
    await settle();
    expect(v.admitted).toEqual([0, 1, 2]);
    advance(50);
    const later = admitMany(s, 'acc_h', 3); // over its share, 6 in flight > 4 slots / 2 accounts
    await settle();
    expect(later.admitted).toEqual([]);
    expect(s.state('acc_h')).toEqual({ inFlight: 6, waiting: 3 });
    // the victim keeps going while the hammer waits
    const v2 = admitMany(s, 'acc_v', 2);
    await settle();
    expect(v2.admitted).toHaveLength(2);
    // the hammer's places free up: its waiters go on only once it is under 2 in flight, oldest first
    for (const release of h.released.slice(0, 4)) release();
    await settle();
    expect(later.admitted).toEqual([]);
    h.released[4]!();
    await settle();
    expect(later.admitted).toEqual([0]);
    h.released[5]!();
    await settle();
    expect(later.admitted).toEqual([0, 1]);
  });

  it('lets the held account go on once the other one is no longer active', async () => {
    const { s, advance } = share({ activeMs: 1000 });
    const h = admitMany(s, 'acc_h', 4);
    await settle();
    advance(200);
    const v = admitMany(s, 'acc_v', 1);
    await settle();
    const later = admitMany(s, 'acc_h', 2);
    await settle();
    expect(later.admitted).toEqual([]);
    v.released[0]!();
    advance(1001); // the victim's last request ended more than activeMs ago
    h.released[0]!();
    await settle();
    expect(later.admitted).toEqual([0, 1]);
  });

  it('does not charge the time a request spends in the engine', () => {
    const { s, advance } = share();
    void s.admit('acc_a', never());
    void s.admit('acc_b', never());
    const back = s.away('acc_a');
    advance(100);
    back();
    expect(s.used('acc_a')).toBe(0);
    expect(s.used('acc_b')).toBeCloseTo(100, 3);
  });

  it('charges each request in flight: three requests for 100 ms weigh three times one', async () => {
    const { s, advance } = share({ halfLifeMs: 1e12 });
    admitMany(s, 'acc_a', 3);
    admitMany(s, 'acc_b', 1);
    await settle();
    advance(100);
    expect(s.used('acc_a')).toBeCloseTo(300, 3);
    expect(s.used('acc_b')).toBeCloseTo(100, 3);
  });

  it('answers a request that waited too long with AdmissionTimeoutError and forgets it', async () => {
    vi.useFakeTimers();
    const { s, advance } = share({ maxWaitMs: 500 });
    admitMany(s, 'acc_h', 4);
    advance(100);
    void s.admit('acc_v', never());
    const late = s.admit('acc_h', never());
    const outcome = late.then(
      () => 'admitted',
      (err: unknown) => err,
    );
    vi.advanceTimersByTime(499);
    expect(s.state('acc_h').waiting).toBe(1);
    vi.advanceTimersByTime(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(AdmissionTimeoutError);
    expect((err as AdmissionTimeoutError).retryAfterSeconds).toBeGreaterThan(0);
    expect(s.state('acc_h')).toEqual({ inFlight: 4, waiting: 0 });
  });

  it('gives a waiting place up when the client leaves', async () => {
    const { s, advance } = share();
    admitMany(s, 'acc_h', 4);
    advance(100);
    void s.admit('acc_v', never());
    const gone = new AbortController();
    const late = s.admit('acc_h', gone.signal).catch((err: unknown) => err);
    expect(s.state('acc_h').waiting).toBe(1);
    gone.abort(new Error('client left'));
    expect(((await late) as Error).message).toBe('client left');
    expect(s.state('acc_h').waiting).toBe(0);
  });
});

describe('the engine as the share sees it', () => {
  it('reports an interactive job of a tenant as away from the loop until it settles, and nothing else', async () => {
    const calls: string[] = [];
    let finish!: () => void;
    const held = new Promise<never>((_, reject) => {
      finish = () => reject(new Error('refused'));
    });
    const engine = meteredEngine(
      {
        analyse: () => held,
        fill: () => Promise.reject(new Error('not used')),
        combine: () => Promise.reject(new Error('not used')),
        editFields: () => Promise.reject(new Error('not used')),
        detectFields: () => Promise.reject(new Error('not used')),
      },
      (account) => {
        calls.push(`away ${account}`);
        return () => calls.push(`back ${account}`);
      },
    );
    const job = engine.analyse(new Uint8Array(), { tenant: 'acc_a' }).catch(() => 'refused');
    expect(calls).toEqual(['away acc_a']);
    finish();
    expect(await job).toBe('refused');
    expect(calls).toEqual(['away acc_a', 'back acc_a']);
    await engine.analyse(new Uint8Array(), { tenant: 'acc_b', priority: 'background' }).catch(() => {});
    await engine.analyse(new Uint8Array()).catch(() => {});
    expect(calls).toEqual(['away acc_a', 'back acc_a']);
  });
});
