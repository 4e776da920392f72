import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { attemptDelivery, type AttemptDeps } from './attempt-delivery.js';
import { claimDueDeliveries } from './delivery-records.js';
import { purgeOldEvents } from './purge-events.js';

/** How often each instance deletes events and deliveries past EVENT_RETENTION_DAYS. */
const PURGE_EVERY_MS = 3600_000;

// The delivery worker: every WEBHOOK_POLL_MS it claims due deliveries, as many as free slots allow (at
// most WEBHOOK_CONCURRENCY attempts in flight), and makes one attempt of each, side by side. Time comes
// from the injected clock, so tests move through the retry schedule without waiting. Every instance runs
// one; the claim keeps their attempts apart. It also purges old events and deliveries once an hour.

export type WorkerDeps = AttemptDeps & Pick<Deps, 'instanceId' | 'tracer'>;

export interface DeliveryWorker {
  /** stop polling and wait for the attempts in flight */
  stop(): Promise<void>;
}

/**
 * An attempt's lease: its whole time budget plus as much again (at least 5 s) for the database writes
 * around it. A process killed mid-attempt has its delivery attempted again once this has passed.
 */
function leaseMs(timeoutMs: number): number {
  return timeoutMs + Math.max(5_000, timeoutMs);
}

export function createDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const { pollMs, concurrency, timeoutMs, endpointConcurrency, accountConcurrency } = deps.config.webhooks;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;
  // Attempts run on their own: a slow receiver holds one slot for its time budget, not the whole worker.
  const inFlight = new Set<Promise<void>>();
  /** an attempt ended while a poll was running: poll again as soon as that one is over */
  let pollAgain = false;
  // An attempt that ends frees a slot, and a place in its endpoint's and its account's shares: deliveries
  // those shares held back may be claimable now, so it polls at once (waiting for the next interval capped
  // each endpoint at WEBHOOK_ENDPOINT_CONCURRENCY deliveries per WEBHOOK_POLL_MS, 2 a second, and a backlog
  // grew without end under a steadier flow of events). A poll that finds nothing due waits the interval.
  const pollNow = () => {
    if (stopped) return;
    if (running) return void (pollAgain = true);
    clearTimeout(timer);
    timer = setTimeout(() => void loop(), 0);
    timer.unref();
  };

  /** Claim up to `limit` due deliveries and start their attempts; returns how many. */
  const claimAndStart = async (limit: number): Promise<number> => {
    const token = `${deps.instanceId}:${randomUUID()}`;
    const claimed = await claimDueDeliveries(deps.db, deps.dbKind, {
      token,
      now: deps.clock.now(),
      leaseMs: leaseMs(timeoutMs),
      limit,
      perEndpoint: endpointConcurrency,
      perAccount: accountConcurrency,
    });
    for (const c of claimed) {
      // ids only: never the URL (it may hold the receiver's token), the signature or the event's data
      const attributes = {
        'formcast.delivery_id': c.id,
        'formcast.account_id': c.account_id,
        'formcast.endpoint_id': c.endpoint_id,
        'formcast.event_id': c.event_id,
        'formcast.event.type': c.event_type,
        'formcast.delivery.attempt': c.attempts,
      };
      const attempt: Promise<void> = deps.tracer
        .inBackground('webhook.deliver', attributes, c.traceparent, async (annotate) => {
          const summary = await attemptDelivery(deps, c, token);
          if (summary)
            annotate({
              'formcast.delivery.outcome': summary.outcome,
              ...(summary.statusCode !== null ? { 'http.response.status_code': summary.statusCode } : {}),
            });
        })
        .catch((err) =>
          // the lease brings the delivery back: it is retried, not lost
          deps.log.error({ err, deliveryId: c.id }, 'webhook attempt could not be recorded'),
        )
        .finally(() => {
          inFlight.delete(attempt);
          pollNow();
        });
      inFlight.add(attempt);
    }
    return claimed.length;
  };

  let failing = false; // said once per outage, not once per poll
  let lastPurge = 0;
  /** one poll: claim what free slots allow, and the hourly purge; true when it filled them (more may be due) */
  const cycle = async (): Promise<boolean> => {
    try {
      const free = concurrency - inFlight.size;
      const full = free > 0 && (await claimAndStart(free)) === free;
      if (failing) deps.log.info('webhook delivery polling works again');
      failing = false;
      if (Date.now() - lastPurge >= PURGE_EVERY_MS) {
        lastPurge = Date.now();
        const purged = await purgeOldEvents(deps);
        if (purged.events || purged.deliveries) deps.log.info(purged, 'purged old events and webhook deliveries');
      }
      return full && inFlight.size < concurrency;
    } catch (err) {
      if (!failing) deps.log.warn({ err }, 'webhook delivery poll failed; retrying every poll interval');
      failing = true;
      return false;
    }
  };
  const loop = async () => {
    if (stopped) return;
    pollAgain = false;
    running = cycle();
    const again = (await running) || pollAgain;
    running = undefined;
    if (stopped) return;
    timer = setTimeout(() => void loop(), again ? 0 : pollMs);
    timer.unref();
  };
  timer = setTimeout(() => void loop(), 0);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await Promise.all([...inFlight]);
    },
  };
}
