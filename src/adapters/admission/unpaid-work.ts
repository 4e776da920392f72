// Each account's budget of unpaid work (issue 27, item 3).
//
// A render that succeeds is paid for: it uses the monthly quota. A refusal (a bomb's upload, render or
// preview refused by the engine or by a remembered refusal, a file too large) and a preview cost workers
// and the main process but no quota, so nothing else bounds an account sending them in a loop. Each account
// has a token bucket of such work: every unpaid request takes its units when it ends (one per 64 KiB of JSON
// body started, http/admission.ts). An account whose
// bucket is empty has its next requests held here, before their body is read (a held request costs the
// process a socket and a promise; a closed-loop client slows down to the refill rate), and let go one per
// unit refilled; a request held longer than the wait is refused with 429 RATE_LIMITED. An account that
// never ran dry is never held, whatever it sends: honest traffic does not meet the budget.
import { Lru } from '../../lib/lru.js';
import { type EndTurn, type RequestAdmission, UnpaidWorkLimitError } from '../../ports/request-admission.js';
import { type HeldRequest, holdRequest, type Schedule, timerSchedule } from './held-request.js';

export interface UnpaidWorkOptions {
  /** Units refilled per minute (the sustained rate of unpaid requests an account may send). */
  perMinute: number;
  /** Units an account starts with and holds at most (the burst it may send at once). */
  burst: number;
  /** Longest a request is held, ms; then UnpaidWorkLimitError (429). */
  maxWaitMs: number;
  /** Milliseconds, monotonic (performance.now(); a fake in tests). */
  now: () => number;
  /** Runs `f` after `ms` and returns what cancels it (setTimeout; a fake in tests). */
  schedule?: Schedule;
  /** Accounts whose bucket is remembered at most (a forgotten one starts full again). */
  maxAccounts?: number;
  /** Told of every held request once it is let go, refused or its client left (metrics). */
  onHeld?: (outcome: 'admitted' | 'rate_limited' | 'left', ms: number) => void;
  /** Told of every unit of unpaid work charged (metrics). */
  onCharged?: (units: number) => void;
}

const MAX_ACCOUNTS = 4096;

interface Bucket {
  /** units left at `at`; below 0 when requests already in flight ended unpaid (a debt paid off first) */
  units: number;
  at: number;
}

/** An account with requests held: its queue and the wake-up when its bucket next holds a unit. */
interface Held {
  queue: HeldRequest[];
  wake?: () => void;
}

export class UnpaidWorkBudget implements RequestAdmission {
  private readonly buckets: Lru<string, Bucket>;
  private readonly held = new Map<string, Held>();
  private readonly perMs: number;
  private readonly schedule: Schedule;

  constructor(private readonly opts: UnpaidWorkOptions) {
    this.buckets = new Lru(opts.maxAccounts ?? MAX_ACCOUNTS);
    this.perMs = opts.perMinute / 60_000;
    this.schedule = opts.schedule ?? timerSchedule;
  }

  admit(account: string, signal: AbortSignal): Promise<EndTurn> {
    if (signal.aborted) return Promise.reject(signal.reason);
    // an account with others held goes behind them, even if a unit came back meanwhile (FIFO)
    if (!this.held.has(account) && this.hasUnit(account)) return Promise.resolve(this.turn(account, false));
    let held = this.held.get(account);
    if (!held) {
      held = { queue: [] };
      this.held.set(account, held);
    }
    const queue = held.queue;
    return new Promise((resolve, reject) => {
      queue.push(
        holdRequest({
          since: this.opts.now(),
          signal,
          maxWaitMs: this.opts.maxWaitMs,
          schedule: this.schedule,
          resolve,
          reject,
          onTimeout: (w) =>
            this.drop(account, w, new UnpaidWorkLimitError(this.retryAfterSeconds(account)), 'rate_limited'),
          onAbort: (w) => this.drop(account, w, signal.reason, 'left'),
        }),
      );
      this.dispatch(account);
    });
  }

  /** Units left to `account` now (the burst for an account never seen); below 0 while in debt. */
  level(account: string, now = this.opts.now()): number {
    const b = this.buckets.get(account);
    if (!b) return this.opts.burst;
    return Math.min(this.opts.burst, b.units + (now - b.at) * this.perMs);
  }

  /** Requests of `account` held now (for tests). */
  holding(account: string): number {
    return this.held.get(account)?.queue.length ?? 0;
  }

  /**
   * A request's turn. One let go from the queue has taken a unit in advance (`reserved`), so held requests
   * go on at the refill rate, not all at once; it gets the unit back if it ends paid.
   */
  private turn(account: string, reserved: boolean): EndTurn {
    let ended = false;
    return (unpaid = 0) => {
      if (ended) return;
      ended = true;
      const units = unpaid - (reserved ? 1 : 0);
      if (unpaid > 0) this.opts.onCharged?.(unpaid);
      if (units !== 0) this.add(account, -units);
      if (units < 0) this.dispatch(account);
    };
  }

  private add(account: string, units: number): void {
    const now = this.opts.now();
    this.buckets.set(account, { units: this.level(account, now) + units, at: now });
  }

  /** Let go every held request the bucket allows now, one unit each; wake up when the next may go. */
  private dispatch(account: string): void {
    const held = this.held.get(account);
    if (!held) return;
    held.wake?.();
    held.wake = undefined;
    while (held.queue.length && this.hasUnit(account)) {
      const w = held.queue.shift()!;
      w.settle();
      this.add(account, -1);
      this.opts.onHeld?.('admitted', this.opts.now() - w.since);
      w.resolve(this.turn(account, true));
    }
    if (!held.queue.length) {
      this.held.delete(account);
      return;
    }
    held.wake = this.schedule(() => {
      held.wake = undefined;
      this.dispatch(account);
    }, this.msUntilUnit(account));
  }

  private drop(account: string, waiter: HeldRequest, reason: unknown, outcome: 'rate_limited' | 'left'): void {
    const held = this.held.get(account);
    const i = held?.queue.indexOf(waiter) ?? -1;
    if (!held || i < 0) return;
    held.queue.splice(i, 1);
    waiter.settle();
    if (!held.queue.length) {
      held.wake?.();
      this.held.delete(account);
    }
    this.opts.onHeld?.(outcome, this.opts.now() - waiter.since);
    waiter.reject(reason);
  }

  /** A whole unit left (with room for the rounding of the refill's float arithmetic). */
  private hasUnit(account: string): boolean {
    return this.level(account) >= 1 - 1e-9;
  }

  /** How long until the bucket holds a unit again, ms (at least 1: a timer never spins). */
  private msUntilUnit(account: string): number {
    return Math.max(1, Math.ceil((1 - this.level(account)) / this.perMs));
  }

  /**
   * Retry-After for a held request refused now (still in the queue): when it would be let go if sent
   * again, after the others held, seconds.
   */
  private retryAfterSeconds(account: string): number {
    const units = this.held.get(account)?.queue.length ?? 1;
    return Math.max(1, Math.ceil((units - this.level(account)) / this.perMs / 1000));
  }
}
