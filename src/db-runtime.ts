// The composition root of the database-only CLI commands (accounts, keys): the database and the
// plans, nothing else. It imports none of the server's adapters (engine pool, S3, Redis, metrics,
// logger), so such a command starts about as fast as node itself.
import { mkdirSync } from 'node:fs';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { openDatabase } from './adapters/db/database.js';
import { loadPlans } from './plans.js';
import { systemClock } from './ports/clock.js';

/** What the database-only CLI commands (accounts, keys) need: no engine, blob store, Redis or metrics. */
export interface DbRuntime extends Pick<Deps, 'db' | 'dbKind' | 'clock' | 'plans'> {
  close(): Promise<void>;
}

/** A composition root for commands that only read and write records: opens the database alone. */
export async function createDbRuntime(config: Config): Promise<DbRuntime> {
  const plans = loadPlans(config.plansFile);
  mkdirSync(config.dataDir, { recursive: true });
  const dbHandle = await openDatabase(config.database);
  return { db: dbHandle.db, dbKind: dbHandle.kind, clock: systemClock, plans, close: () => dbHandle.close() };
}
