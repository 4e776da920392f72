import { sql } from 'kysely';
import type { Db, DbKind } from './database.js';

/** The database's current time, ms since the epoch: the one clock every instance can agree on. */
export async function readDbTime(db: Db, kind: DbKind): Promise<number> {
  if (kind === 'postgres') {
    const { rows } = await sql<{ t: Date | string }>`select clock_timestamp() as t`.execute(db);
    return new Date(rows[0]!.t).getTime();
  }
  const { rows } = await sql<{ t: string }>`select strftime('%Y-%m-%dT%H:%M:%fZ', 'now') as t`.execute(db);
  return Date.parse(rows[0]!.t);
}
