import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { attemptDelivery, type AttemptDeps } from './attempt-delivery.js';
import { claimDueDeliveries } from './claim-deliveries.js';
import { purgeOldEvents } from './purge-events.js';

/** How often each instance deletes events and deliveries past EVENT_RETENTION_DAYS. */
const PURGE_EVERY_MS = 3600_000;

// The delivery worker: every WEBHOOK_POLL_MS it claims due deliveries (at most WEBHOOK_CONCURRENCY) and
// makes one attempt of each, side by side. Time comes from the injected clock, so tests move through
// the retry schedule without waiting. Every instance runs one; the claim keeps their attempts apart.
// It also purges old events and deliveries once an hour.

export type WorkerDeps = AttemptDeps & Pick<Deps, 'instanceId'>;

export interface DeliveryWorker {
  /** claim and attempt what is due now; resolves when those attempts are recorded (tests, shutdown) */
  runOnce(): Promise<number>;
  /** stop polling and wait for the attempts in flight */
  stop(): Promise<void>;
}

/**
 * An attempt's lease: its whole time budget plus as much again (at least 5 s) for the database writes
 * around it. A process killed mid-attempt has its delivery attempted again once this has passed.
 */
export function leaseMs(timeoutMs: number): number {
  return timeoutMs + Math.max(5_000, timeoutMs);
}

export function createDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const { pollMs, concurrency, timeoutMs } = deps.config.webhooks;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;

  const runOnce = async (): Promise<number> => {
    const token = `${deps.instanceId}:${randomUUID()}`;
    const claimed = await claimDueDeliveries(deps.db, deps.dbKind, {
      token,
      now: deps.clock.now(),
      leaseMs: leaseMs(timeoutMs),
      limit: concurrency,
    });
    await Promise.all(
      claimed.map((c) =>
        attemptDelivery(deps, c, token).catch((err) =>
          // the lease brings the delivery back: it is retried, not lost
          deps.log.error({ err, deliveryId: c.id }, 'webhook attempt could not be recorded'),
        ),
      ),
    );
    return claimed.length;
  };

  let failing = false; // said once per outage, not once per poll
  let lastPurge = 0;
  /** one poll: claim and attempt, and the hourly purge; true when the batch was full (more may be due) */
  const cycle = async (): Promise<boolean> => {
    try {
      const full = (await runOnce()) === concurrency;
      if (failing) deps.log.info('webhook delivery polling works again');
      failing = false;
      if (Date.now() - lastPurge >= PURGE_EVERY_MS) {
        lastPurge = Date.now();
        const purged = await purgeOldEvents(deps);
        if (purged.events || purged.deliveries) deps.log.info(purged, 'purged old events and webhook deliveries');
      }
      return full;
    } catch (err) {
      if (!failing) deps.log.warn({ err }, 'webhook delivery poll failed; retrying every poll interval');
      failing = true;
      return false;
    }
  };
  const loop = async () => {
    if (stopped) return;
    running = cycle();
    const full = await running;
    running = undefined;
    if (stopped) return;
    timer = setTimeout(() => void loop(), full ? 0 : pollMs);
    timer.unref();
  };
  timer = setTimeout(() => void loop(), 0);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
