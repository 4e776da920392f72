// Which better-sqlite3 this Node runs. Version 12 subclasses node::ObjectWrap, whose destructor on
// Node 24.19+ checks for an entered Environment: a Statement finalised by a GC outside one (a worker's
// teardown, an idle-time GC) aborts the whole process (WiseLibs/better-sqlite3#1515, closed without a
// fix for 12; seen here once in the suite on Node 24.21). Version 13 is a Node-API module with
// prebuilt binaries inside its package (no build at install), and needs Node 22 or later: on Node 20
// it segfaults on first use. So: 13 from Node 22 on, 12 (built from source at install, an optional
// dependency so that a machine without a compiler still installs) on Node 20.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { nodeMajor } from '../../lib/node-version.js';

const require = createRequire(import.meta.url);

export type SqliteDatabaseClass = typeof BetterSqlite3;

/**
 * Whether Node 20's driver was built at install (12 loads its binary only when a database is opened,
 * so its module loads without one).
 */
export function node20DriverBuilt(): boolean {
  try {
    require.resolve('better-sqlite3-node20/build/Release/better_sqlite3.node');
    return true;
  } catch {
    return false;
  }
}

/** The better-sqlite3 Database class for the running Node. */
export function sqliteDriver(nodeVersion = process.versions.node): SqliteDatabaseClass {
  if (nodeMajor(nodeVersion) >= 22) return require('better-sqlite3') as SqliteDatabaseClass;
  if (!node20DriverBuilt()) {
    throw new Error(
      `SQLite on Node ${nodeVersion} needs better-sqlite3 12 built at install (npm ci with a C++ compiler ` +
        'and Python, install scripts allowed); its binary is not there. Node 22 or 24 need no build.',
    );
  }
  return require('better-sqlite3-node20') as SqliteDatabaseClass;
}
