// Shares of the server's main process between accounts (issue 27).
//
// The worker pool shares render time fairly (workers/fair-share.ts), but every request also costs the one
// event loop of the main process: body decoding, JSON, SQLite, the copy to a worker, the answer. With the
// loop saturated it serves callbacks first come, first served, so an account sending many cheap requests
// takes the loop in proportion to how many it has in flight. Here, while the loop is busy and more than
// one account is active, an account that used more than an equal share of the main process lately may
// hold at most an equal share of `slots` requests in flight; its others wait, before their body is read.
// An account at or under its share never waits. Usage is each account's requests' time in flight outside
// the engine (a request waiting for a worker costs the main process nothing; the pool shares that), in a
// window that decays with a half-life. Idle loop, or one account alone: nobody waits.
import { performance } from 'node:perf_hooks';
import { Lru } from '../../lib/lru.js';
import { AdmissionTimeoutError, type EndTurn, type RequestAdmission } from '../../ports/request-admission.js';
import { type HeldRequest, holdRequest, timerSchedule } from './held-request.js';

export interface MainShareOptions {
  /** In-flight requests shared equally by the active accounts while the loop is busy. */
  slots: number;
  /** Longest a request waits to be admitted, ms; then AdmissionTimeoutError. */
  maxWaitMs: number;
  /** Milliseconds, monotonic (performance.now(); a fake in tests). */
  now: () => number;
  /** Whether the main process is saturated now (loopBusy below; a constant in tests). */
  busy: () => boolean;
  /** Half-life of charged time, ms. */
  halfLifeMs?: number;
  /** An account counts as active this long after its last request, ms. */
  activeMs?: number;
  /** Accounts whose usage is remembered at most. */
  maxAccounts?: number;
  /** Told of every request that had to wait, once it is admitted, timed out or left (metrics). */
  onWaited?: (outcome: 'admitted' | 'timed_out' | 'left', ms: number) => void;
}

/** One second: long enough to see a pattern over many requests, short enough to forgive a burst. */
const HALF_LIFE_MS = 1000;
/** A client at concurrency 1-2 has gaps of a round trip between requests: still active through them. */
const ACTIVE_MS = 1000;
const MAX_ACCOUNTS = 4096;
/** Places turn over in milliseconds: a client told to wait may try again soon. */
const RETRY_AFTER_SECONDS = 1;

/** An account with requests in flight or waiting. */
interface Live {
  inFlight: number;
  /** of those in flight, how many are in the engine now */
  away: number;
  waiting: HeldRequest[];
}

interface Usage {
  /** charged ms, decayed to `at` */
  ms: number;
  at: number;
}

export class MainShare implements RequestAdmission {
  private readonly usage: Lru<string, Usage>;
  private readonly live = new Map<string, Live>();
  /** when each account last started or ended a request; entries past activeMs are dropped as read */
  private readonly seen = new Map<string, number>();
  private readonly halfLifeMs: number;
  private readonly activeMs: number;

  constructor(private readonly opts: MainShareOptions) {
    this.usage = new Lru(opts.maxAccounts ?? MAX_ACCOUNTS);
    this.halfLifeMs = opts.halfLifeMs ?? HALF_LIFE_MS;
    this.activeMs = opts.activeMs ?? ACTIVE_MS;
  }

  admit(account: string, signal: AbortSignal): Promise<EndTurn> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const live = this.liveOf(account);
    this.seen.set(account, this.opts.now());
    if (!live.waiting.length && this.mayEnter(account, live)) return Promise.resolve(this.enter(account, live));
    return new Promise((resolve, reject) => {
      live.waiting.push(
        holdRequest({
          since: this.opts.now(),
          signal,
          maxWaitMs: this.opts.maxWaitMs,
          schedule: timerSchedule,
          resolve,
          reject,
          onTimeout: (w) => this.drop(account, w, new AdmissionTimeoutError(RETRY_AFTER_SECONDS), 'timed_out'),
          onAbort: (w) => this.drop(account, w, signal.reason, 'left'),
        }),
      );
    });
  }

  /**
   * A request of `account` hands work to the engine (its time there is not the main process's); the
   * function returned says it is back. The composition root wraps the engine with this (meteredEngine).
   */
  away(account: string): () => void {
    const live = this.live.get(account);
    if (!live) return () => {};
    this.settle(account, live);
    live.away++;
    let back = false;
    return () => {
      if (back) return;
      back = true;
      this.settle(account, live);
      live.away--;
    };
  }

  /** Requests of `account` in flight and waiting (for tests and metrics). */
  state(account: string): { inFlight: number; waiting: number } {
    const live = this.live.get(account);
    return { inFlight: live?.inFlight ?? 0, waiting: live?.waiting.length ?? 0 };
  }

  /** Decayed main-process time charged to `account`, with its requests in flight so far, ms. */
  used(account: string, now = this.opts.now()): number {
    const u = this.usage.get(account);
    let ms = u ? u.ms * 2 ** (-(now - u.at) / this.halfLifeMs) : 0;
    const live = this.live.get(account);
    if (live && u) ms += this.occupied(live) * (now - u.at);
    return ms;
  }

  private enter(account: string, live: Live): EndTurn {
    this.settle(account, live);
    live.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.settle(account, live);
      live.inFlight--;
      this.seen.set(account, this.opts.now());
      if (!live.inFlight && !live.waiting.length) this.live.delete(account);
      this.dispatch();
    };
  }

  /** Admit every waiting request that may go now. */
  private dispatch(): void {
    for (const [account, live] of this.live) {
      while (live.waiting.length && this.mayEnter(account, live)) {
        const w = live.waiting.shift()!;
        w.settle();
        this.opts.onWaited?.('admitted', this.opts.now() - w.since);
        w.resolve(this.enter(account, live));
      }
    }
  }

  private drop(account: string, waiter: HeldRequest, reason: unknown, outcome: 'timed_out' | 'left'): void {
    const live = this.live.get(account);
    const i = live?.waiting.indexOf(waiter) ?? -1;
    if (!live || i < 0) return;
    live.waiting.splice(i, 1);
    waiter.settle();
    if (!live.inFlight && !live.waiting.length) this.live.delete(account);
    this.opts.onWaited?.(outcome, this.opts.now() - waiter.since);
    waiter.reject(reason);
  }

  /** Alone, or the loop not busy: no limit. Otherwise an account over an equal share holds its part of the slots. */
  private mayEnter(account: string, live: Live): boolean {
    const active = this.active();
    if (active.length < 2 || !this.opts.busy()) return true;
    const now = this.opts.now();
    let total = 0;
    for (const a of active) total += this.used(a, now);
    if (this.used(account, now) <= total / active.length) return true;
    return live.inFlight < Math.max(1, Math.floor(this.opts.slots / active.length));
  }

  /** Accounts with requests in flight or waiting, or one within activeMs. */
  private active(): string[] {
    const now = this.opts.now();
    const out = new Set(this.live.keys());
    for (const [account, at] of this.seen) {
      if (now - at < this.activeMs) out.add(account);
      else this.seen.delete(account);
    }
    return [...out];
  }

  /** Charge the time since the last settlement to `account`: its requests in flight outside the engine. */
  private settle(account: string, live: Live): void {
    const now = this.opts.now();
    const u = this.usage.get(account);
    if (!u) {
      this.usage.set(account, { ms: 0, at: now });
      return;
    }
    const ms = u.ms * 2 ** (-(now - u.at) / this.halfLifeMs) + this.occupied(live) * (now - u.at);
    this.usage.set(account, { ms, at: now });
  }

  private occupied(live: Live): number {
    return Math.max(0, live.inFlight - live.away);
  }

  private liveOf(account: string): Live {
    let live = this.live.get(account);
    if (!live) {
      live = { inFlight: 0, away: 0, waiting: [] };
      this.live.set(account, live);
    }
    return live;
  }
}

/**
 * Whether the event loop was busy for at least `threshold` (0-1) of the last `windowMs` or more
 * (event-loop utilisation: time in callbacks over wall time). Read at most once a window.
 */
export function loopBusy(threshold: number, windowMs = 100): () => boolean {
  if (threshold <= 0) return () => true;
  let mark = performance.eventLoopUtilization();
  let busy = false;
  return () => {
    const d = performance.eventLoopUtilization(mark);
    if (d.idle + d.active >= windowMs) {
      busy = d.utilization >= threshold;
      mark = performance.eventLoopUtilization();
    }
    return busy;
  };
}
