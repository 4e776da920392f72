import { sqliteDriver } from './sqlite-driver.js';

export interface SqliteSnapshot {
  /** What `PRAGMA integrity_check` said of the copy: "ok" when it is sound. */
  integrity: string;
  /** Rows per table in the copy, so an operator can compare with what they expect. */
  rows: Record<string, number>;
}

/**
 * A consistent copy of a live SQLite database. Copying the file itself is not a backup in WAL mode:
 * recent commits live in `-wal` until a checkpoint, and a copy taken without it loses acknowledged
 * work. `VACUUM INTO` reads one snapshot in a single read transaction, so the server keeps writing
 * meanwhile; the online backup API would start over on every write of another process, and a busy
 * server could keep it from ever finishing.
 */
export async function snapshotSqlite(source: string, destination: string): Promise<SqliteSnapshot> {
  const SQLite = sqliteDriver();
  const live = new SQLite(source, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    live.prepare('vacuum into ?').run(destination);
  } finally {
    live.close();
  }
  const copy = new SQLite(destination, { readonly: true });
  try {
    const integrity = String(copy.pragma('integrity_check', { simple: true }));
    const tables = copy
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
      .all() as { name: string }[];
    const rows: Record<string, number> = {};
    for (const { name } of tables)
      rows[name] = (copy.prepare(`select count(*) as n from "${name.replaceAll('"', '""')}"`).get() as { n: number }).n;
    return { integrity, rows };
  } finally {
    copy.close();
  }
}
