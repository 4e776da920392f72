import type { Db } from '../../adapters/db/database.js';
import type { UsageThresholdData } from './event-data.js';
import { publishEvent } from './publish-event.js';

// usage.renders.threshold: announced when the month's renders reach 80 % and 100 % of the quota, once each
// per account and month. Called inside the quota reservation transaction (which holds the account lock),
// so `used` is exact; the marker row in usage_thresholds (primary key account, month, threshold) makes
// "once" hold even when released reservations let the count cross a threshold a second time.

const USAGE_THRESHOLDS = [80, 100] as const;

export async function announceUsageThresholds(
  trx: Db,
  usage: { accountId: string; month: string; used: number; limit: number },
  now: Date,
  /** the request's trace (Tracer.traceparent()), for the deliveries' spans */
  traceparent?: string,
): Promise<void> {
  if (usage.limit <= 0) return;
  for (const threshold of USAGE_THRESHOLDS) {
    if (usage.used * 100 < threshold * usage.limit) return; // thresholds are in increasing order
    const marked = await trx
      .insertInto('usage_thresholds')
      .values({ account_id: usage.accountId, month: usage.month, threshold, created_at: now.toISOString() })
      .onConflict((oc) => oc.columns(['account_id', 'month', 'threshold']).doNothing())
      .executeTakeFirst();
    if (Number(marked.numInsertedOrUpdatedRows ?? 0) === 0) continue; // already announced this month
    const data: UsageThresholdData = {
      month: usage.month,
      threshold,
      renders: { used: usage.used, limit: usage.limit },
    };
    await publishEvent(
      trx,
      {
        accountId: usage.accountId,
        type: 'usage.renders.threshold',
        data,
        traceparent,
      },
      now,
    );
  }
}

/** Markers of months before `month` (YYYY-MM) no longer matter: deleted. */
export async function purgeUsageThresholdsBefore(db: Db, month: string): Promise<void> {
  await db.deleteFrom('usage_thresholds').where('month', '<', month).execute();
}
