import { sql } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';

// Claiming due deliveries so that each attempt is made once across instances. The claim is one UPDATE:
// it stamps the rows with this claim's token, counts the attempt and moves `next_attempt_at` to the end
// of a lease. On PostgreSQL the inner SELECT ... FOR UPDATE SKIP LOCKED lets instances claim side by side
// without waiting on or taking each other's rows; SQLite runs the statement under its single writer lock.
// A process killed mid-attempt leaves its rows claimed until the lease ends; they are then due again
// and the next claim takes them (the interrupted attempt counts as one).

export interface ClaimedDelivery {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
}

export async function claimDueDeliveries(
  db: Db,
  kind: DbKind,
  input: { token: string; now: Date; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  const now = input.now.toISOString();
  const leaseEnd = new Date(input.now.getTime() + input.leaseMs).toISOString();
  const lock = kind === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<ClaimedDelivery>`
    update webhook_deliveries
       set claimed_by = ${input.token}, next_attempt_at = ${leaseEnd}, attempts = attempts + 1, last_attempt_at = ${now}
     where id in (
       select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${now}
        order by next_attempt_at
        limit ${input.limit}
        ${lock})
    returning id, account_id, endpoint_id, event_id, attempts`.execute(db);
  return result.rows;
}
