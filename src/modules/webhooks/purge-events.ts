import { sql } from 'kysely';
import type { Deps } from '../../deps.js';
import { monthOf } from '../accounts/quotas.js';

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
  const deliveries = await inBatches(async () => {
    const res = await deps.db
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '!=', 'pending')
          .where('created_at', '<', cutoff)
          .limit(BATCH),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  });
  const events = await inBatches(async () => {
    const res = await deps.db
      .deleteFrom('events')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('events')
          .select('id')
          .where('created_at', '<', cutoff)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('webhook_deliveries').select(sql.lit(1).as('x')).whereRef('event_id', '=', 'events.id'),
              ),
            ),
          )
          .limit(BATCH),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  });
  const logEntries = await inBatches(async () => {
    const res = await deps.db
      .deleteFrom('webhook_endpoint_log')
      .where('id', 'in', (eb) =>
        eb.selectFrom('webhook_endpoint_log').select('id').where('created_at', '<', cutoff).limit(BATCH),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  });
  // threshold markers matter for the current month only
  const lastMonth = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
  await deps.db.deleteFrom('usage_thresholds').where('month', '<', lastMonth).execute();
  return { deliveries, events, logEntries };
}
