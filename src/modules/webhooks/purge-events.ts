import type { Deps } from '../../deps.js';
import { monthOf } from '../accounts/quotas.js';
import { purgeEvents } from '../events/event-records.js';
import { purgeUsageThresholdsBefore } from '../events/usage-threshold.js';
import { purgeFinishedDeliveries } from './delivery-records.js';
import { purgeEndpointLog } from './endpoint-log-records.js';

// Events, finished deliveries and endpoint log entries are kept EVENT_RETENTION_DAYS (30), then deleted in
// batches; an event is kept as long as a delivery of it is. Any instance may run it at any time: it only
// deletes, so two running together just share the work.

const BATCH = 1000;

export interface PurgeResult {
  deliveries: number;
  events: number;
  logEntries: number;
}

async function inBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await run();
    total += n;
    if (n < BATCH) return total;
  }
}

export async function purgeOldEvents(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<PurgeResult> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - deps.config.webhooks.retentionDays * 86_400_000).toISOString();
  const deliveries = await inBatches(() => purgeFinishedDeliveries(deps.db, cutoff, BATCH));
  const events = await inBatches(() => purgeEvents(deps.db, cutoff, BATCH));
  const logEntries = await inBatches(() => purgeEndpointLog(deps.db, cutoff, BATCH));
  // threshold markers matter for the current month only
  const lastMonth = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
  await purgeUsageThresholdsBefore(deps.db, lastMonth);
  return { deliveries, events, logEntries };
}
