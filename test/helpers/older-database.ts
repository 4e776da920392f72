import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { openDatabase } from '../../src/adapters/db/database.js';
import { migrationProvider } from '../../src/adapters/db/migrations.js';
import { sqliteDriver } from '../../src/adapters/db/sqlite-driver.js';
import { freshPostgresUrl, type DbName } from './server.js';

/** A database of its own as an earlier release left it: every migration before `migration` applied. */
export interface OlderDatabase {
  /** how the current code opens it (openDatabase runs the remaining migrations) */
  config: Parameters<typeof openDatabase>[0];
  /**
   * a connection of the earlier schema, to write the rows an upgrade must keep; destroy it before opening.
   * Untyped: the earlier schema is not today's Database.
   */
  older: Kysely<any>;
  /** removes the database (the folder, or the PostgreSQL schema) */
  cleanup(): Promise<void>;
}

export async function databaseBefore(name: DbName, migration: string): Promise<OlderDatabase> {
  let config: OlderDatabase['config'];
  let older: Kysely<any>;
  let schema: string | undefined;
  let cleanup: () => Promise<void>;
  if (name === 'postgres') {
    const fresh = await freshPostgresUrl();
    config = { kind: 'postgres', url: fresh.url };
    schema = fresh.schema;
    cleanup = fresh.drop;
    older = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: fresh.url }) }) });
  } else {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-older-db-'));
    config = { kind: 'sqlite', file: path.join(dir, 'db.sqlite') };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
    older = new Kysely({ dialect: new SqliteDialect({ database: new (sqliteDriver())(config.file) }) });
  }
  const all = await migrationProvider.getMigrations();
  const before = Object.fromEntries(Object.entries(all).filter(([k]) => k < migration));
  const migrated = await new Migrator({
    db: older,
    provider: { getMigrations: async () => before },
    migrationTableSchema: schema,
  }).migrateToLatest();
  if (migrated.error) {
    await older.destroy();
    await cleanup();
    throw migrated.error;
  }
  return { config, older, cleanup };
}
