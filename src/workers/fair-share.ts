// Time-based fair shares of the worker pool between tenants (accounts).
//
// Counting jobs is not fair: a tenant whose jobs take 50 ms and one whose jobs take 0.5 ms get the same
// number of turns, so the first gets 99 % of the workers. Here each tenant is charged the worker time its
// jobs held (wall time from dispatch to answer: what the others could not use), in a window that decays
// with a half-life, and a freed worker goes to the waiting tenant that used the least recently (weighted
// fair queueing with equal weights, on measured time). A tenant also may hold at most all workers but one
// while another tenant has work waiting or was active recently, so a cheap tenant's job always finds a
// worker within one of its own job lengths, whatever the other sends. Pure bookkeeping on an injected
// clock: the pool owns the processes, this decides only who goes next.
import { Lru } from '../lib/lru.js';

export interface FairShareOptions {
  /** Worker processes shared. */
  workers: number;
  /** Milliseconds, monotonic (performance.now() in the pool; a fake in tests). */
  now: () => number;
  /** Half-life of charged time, ms: usage this long ago counts half. */
  halfLifeMs?: number;
  /** A tenant counts as active this long after its last job started or ended, ms. */
  activeMs?: number;
  /** Tenants remembered at most (least recently charged forgotten first). */
  maxTenants?: number;
}

/** Two seconds: long enough to see a tenant's pattern across many jobs, short enough to forgive a burst. */
const HALF_LIFE_MS = 2000;
/**
 * One second: a tenant that renders at concurrency 1-2 has gaps of a round trip (a few ms) between jobs;
 * the other tenant must not take every worker during such a gap.
 */
const ACTIVE_MS = 1000;
const MAX_TENANTS = 4096;
/** Work submitted without a tenant (the CLI, internal jobs) shares as one tenant of its own. */
const NO_TENANT = '';

interface Usage {
  /** charged worker ms, decayed to `at` */
  ms: number;
  at: number;
}

export class FairShare {
  private readonly usage: Lru<string, Usage>;
  /**
   * The two tenants active last, newest first: whether someone other than t was active recently needs only
   * these (if it is not the newest, it is the second), not a walk over every tenant remembered.
   */
  private recent: { tenant: string; at: number }[] = [];
  /** start times of each tenant's running jobs */
  private readonly running = new Map<string, number[]>();
  private readonly halfLifeMs: number;
  /** how long a tenant counts as active after its last job started or ended, ms */
  readonly activeMs: number;

  constructor(private readonly opts: FairShareOptions) {
    this.usage = new Lru(opts.maxTenants ?? MAX_TENANTS);
    this.halfLifeMs = opts.halfLifeMs ?? HALF_LIFE_MS;
    this.activeMs = opts.activeMs ?? ACTIVE_MS;
  }

  /** A worker took a job of `tenant`; returns the start time to hand back to `finished`. */
  started(tenant: string | undefined): number {
    const t = tenant ?? NO_TENANT;
    const now = this.opts.now();
    const list = this.running.get(t);
    if (list) list.push(now);
    else this.running.set(t, [now]);
    this.charge(t, 0, now);
    return now;
  }

  /** The job started at `startedAt` ended (answered, stopped or lost): its worker time is charged. */
  finished(tenant: string | undefined, startedAt: number): void {
    const t = tenant ?? NO_TENANT;
    const now = this.opts.now();
    const list = this.running.get(t);
    const i = list?.indexOf(startedAt) ?? -1;
    if (list && i >= 0) {
      list.splice(i, 1);
      if (!list.length) this.running.delete(t);
    }
    this.charge(t, Math.max(0, now - startedAt), now);
  }

  /** Jobs of `tenant` running now. */
  runningCount(tenant: string | undefined): number {
    return this.running.get(tenant ?? NO_TENANT)?.length ?? 0;
  }

  /**
   * Which waiting job goes next (its index in `waiting`, the tenants of the waiting jobs oldest first),
   * or -1 when every waiting tenant is at its share. Each tenant's oldest job stands for it. `alsoWaiting`:
   * tenants with work in another queue (they do not take this turn, but they hold the others to their share).
   */
  choose(waiting: readonly (string | undefined)[], alsoWaiting: readonly (string | undefined)[] = []): number {
    const now = this.opts.now();
    const first = new Map<string, number>();
    waiting.forEach((tenant, i) => {
      const t = tenant ?? NO_TENANT;
      if (!first.has(t)) first.set(t, i);
    });
    const others = new Set([...first.keys(), ...alsoWaiting.map((t) => t ?? NO_TENANT)]);
    let best = -1;
    let least = Number.POSITIVE_INFINITY;
    for (const [t, i] of first) {
      if (this.atShare(t, others, now)) continue;
      const used = this.used(t, now);
      if (used < least) {
        least = used;
        best = i;
      }
    }
    return best;
  }

  /** Decayed charged time plus the time its running jobs have held their workers so far, ms. */
  used(tenant: string | undefined, now = this.opts.now()): number {
    const t = tenant ?? NO_TENANT;
    const u = this.usage.get(t);
    let ms = u ? this.decayed(u, now) : 0;
    for (const at of this.running.get(t) ?? []) ms += now - at;
    return ms;
  }

  /** All workers but one, while someone else waits or was active recently (one worker: no cap possible). */
  private atShare(t: string, waiting: ReadonlySet<string>, now: number): boolean {
    const share = this.opts.workers - 1;
    if (share < 1 || this.runningCount(t) < share) return false;
    for (const other of waiting) if (other !== t) return true;
    for (const other of this.running.keys()) if (other !== t) return true;
    const other = this.recent.find((r) => r.tenant !== t);
    return other !== undefined && now - other.at < this.activeMs;
  }

  private charge(t: string, ms: number, now: number): void {
    const u = this.usage.get(t);
    this.usage.set(t, { ms: (u ? this.decayed(u, now) : 0) + ms, at: now });
    this.recent = [{ tenant: t, at: now }, ...this.recent.filter((r) => r.tenant !== t)].slice(0, 2);
  }

  private decayed(u: Usage, now: number): number {
    return u.ms * 2 ** (-(now - u.at) / this.halfLifeMs);
  }
}
