import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Database } from './schema.js';
import { LATEST_MIGRATION, migrationProvider } from './migrations.js';
import { OwnSchemaPostgresDialect } from './own-schema-dialect.js';
import { sqliteDriver } from './sqlite-driver.js';
import { withStatementCache } from './sqlite-statements.js';

export type Db = Kysely<Database>;
export type DbKind = Config['database']['kind'];

export interface DbHandle {
  db: Db;
  kind: DbKind;
  close(): Promise<void>;
}

/**
 * Open the configured database and bring its schema up to date. `onConnectionError` hears about
 * connections the server dropped while idle (restart, failover, pg_terminate_backend, a proxy's idle
 * timeout): the pool discards them and connects again on the next query, so they are not fatal.
 */
export async function openDatabase(
  config: Config['database'],
  onConnectionError: (err: Error) => void = () => {},
): Promise<DbHandle> {
  let db: Db;
  if (config.kind === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(path.dirname(config.file), { recursive: true });
    const SQLite = sqliteDriver();
    const sqlite = new SQLite(config.file);
    // WAL lets readers proceed during a write; busy_timeout covers a second process (the CLI) writing.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    // In WAL mode NORMAL syncs at checkpoints, not on every commit: no corruption on power loss, at
    // most the last commits lost, and a commit drops from an fsync to a write.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // Page cache 2 MiB (SQLite's own default; better-sqlite3 builds with 16): it fills as the database
    // grows and counts in the server's RSS (malloc heap), while a page missed comes back from the OS's
    // file cache in microseconds. Measured: the bench's server malloc heap 31 → 14 MB, the same number
    // of reads. See docs/decisions.md "Server heap and SQLite page cache".
    sqlite.pragma('cache_size = -2000');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  } else {
    // Loaded only for PostgreSQL: SQLite deployments and the CLI do not pay for pg's start-up.
    const { default: pg } = await import('pg');
    // BIGINT (file sizes) comes back as a string by default; ours stay far below 2^53.
    pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
    // A query waits at most 5 s for a connection: with the database down, requests fail fast (503).
    const pool = new pg.Pool({ connectionString: config.url, max: 10, connectionTimeoutMillis: 5000 });
    pool.on('error', onConnectionError);
    // A checked-out client whose socket dies between queries emits 'error' on itself, not the pool.
    pool.on('connect', (client) => client.on('error', onConnectionError));
    db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  }
  await migrate(db, config.kind);
  return { db, kind: config.kind, close: () => db.destroy() };
}

/** True when the newest migration is already applied: one query instead of the migrator's lock dance. */
async function upToDate(db: Db, schema: string | undefined): Promise<boolean> {
  try {
    const table = schema ? sql.table(`${schema}.kysely_migration`) : sql.table('kysely_migration');
    const rows = await sql<{ name: string }>`select name from ${table} where name = ${LATEST_MIGRATION}`.execute(db);
    return rows.rows.length > 0;
  } catch {
    return false; // no bookkeeping table yet: a new database
  }
}

async function migrate(db: Db, kind: DbKind = 'sqlite'): Promise<void> {
  // Kysely looks for its bookkeeping tables across all schemas; pin them to ours (search_path may differ).
  const schema =
    kind === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  if (await upToDate(db, schema)) return;
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String((error as Error)?.message ?? error)}`,
    );
  }
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
