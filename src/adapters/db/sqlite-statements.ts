// better-sqlite3 for Kysely with prepared statements reused. Kysely's SQLite driver calls
// `db.prepare(sql)` for every query; compiling the SQL costs more than running most of ours (measured
// ~0.1-0.2 ms per statement, several per API request). Our queries are a fixed set of SQL texts with
// bound parameters, so a small LRU keyed by the text holds them all.
//
// Safe because Kysely runs a statement to completion synchronously (`all` / `run`) before the next
// one starts. The exception would be `.stream()` (a statement iterated across awaits), which this
// service does not use: two overlapping streams of the same SQL would share one busy statement.
import type { Database as SqliteDb, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { Lru } from '../../lib/lru.js';

const MAX_STATEMENTS = 256;

export function withStatementCache(sqlite: SqliteDb): SqliteDatabase {
  const statements = new Lru<string, Statement>(MAX_STATEMENTS);
  return {
    close: () => void sqlite.close(),
    prepare(sql: string) {
      let stmt = statements.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        statements.set(sql, stmt);
      }
      return stmt;
    },
  };
}
