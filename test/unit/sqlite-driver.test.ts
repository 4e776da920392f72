// The SQLite driver follows the running Node: better-sqlite3 13 (Node-API) from Node 22 on, 12 on Node 20.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { node20DriverBuilt, sqliteDriver } from '../../src/adapters/db/sqlite-driver.js';
import { nodeMajor } from '../../src/lib/node-version.js';

const require = createRequire(import.meta.url);
const major = nodeMajor();
/** Node 20's driver is optional: on Node 22/24 an install without a compiler has none. */
const node20Driver = node20DriverBuilt();

describe('sqliteDriver', () => {
  it('takes better-sqlite3 13 on Node 22 and 24', () => {
    expect(sqliteDriver('22.23.3')).toBe(require('better-sqlite3'));
    expect(sqliteDriver('24.21.0')).toBe(require('better-sqlite3'));
    expect(require('better-sqlite3/package.json').version).toMatch(/^13\./);
  });

  it.skipIf(major >= 22 && !node20Driver)('takes better-sqlite3 12 on Node 20', () => {
    expect(sqliteDriver('20.20.2')).toBe(require('better-sqlite3-node20'));
    expect(require('better-sqlite3-node20/package.json').version).toMatch(/^12\./);
  });

  it.skipIf(node20Driver)('says what is missing when Node 20 has no built driver', () => {
    expect(() => sqliteDriver('20.20.2')).toThrow(/needs better-sqlite3 12 built at install/);
  });

  it('opens a database that runs statements on the running Node', () => {
    const Database = sqliteDriver();
    const db = new Database(':memory:');
    try {
      db.exec('create table t (a integer)');
      const insert = db.prepare('insert into t values (?)');
      db.transaction(() => {
        for (let i = 0; i < 100; i++) insert.run(i);
      })();
      expect(db.prepare('select count(*) as n, sum(a) as s from t').get()).toEqual({ n: 100, s: 4950 });
    } finally {
      db.close();
    }
  });
});
