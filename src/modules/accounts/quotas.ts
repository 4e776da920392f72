import { sql } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';

// Quotas are exact under concurrency: a use case that consumes quota runs "lock the account row, count,
// insert" inside one transaction. PostgreSQL serialises on SELECT ... FOR UPDATE (across instances too);
// SQLite serialises every write transaction on its single writer, and Kysely runs ours on one connection.

export async function lockAccount(trx: Db, kind: DbKind, accountId: string): Promise<void> {
  if (kind === 'postgres') {
    await sql`select id from accounts where id = ${accountId} for update`.execute(trx);
  }
}

/** Calendar month in UTC, YYYY-MM (contract: the month is the calendar month in UTC). */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
