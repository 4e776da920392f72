// The migration looks for its bookkeeping tables through Kysely's introspection. Kysely's own lists
// every schema's tables and checks each schema by name outside the query's snapshot, so a schema another
// session dropped meanwhile failed the start-up ("database migration failed: schema "t_…" does not
// exist": seen in the suite, where servers create and drop schemas beside each other). A REPEATABLE READ
// transaction makes that window certain: its snapshot still holds the dropped schema's catalog rows.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/database.js';
import { OwnSchemaPostgresDialect, ownColumnsQuery } from '../../src/adapters/db/own-schema-dialect.js';
import { freshPostgresUrl } from '../helpers/server.js';

const PG = process.env.TEST_DATABASE_URL;

describe.skipIf(!PG)(
  `introspection of the connection's own schema [PostgreSQL]${PG ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  () => {
    let own: Awaited<ReturnType<typeof freshPostgresUrl>>;
    let admin: pg.Client;
    beforeAll(async () => {
      own = await freshPostgresUrl();
      admin = new pg.Client({ connectionString: PG });
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.end();
      await own?.drop();
    });

    it('lists its own tables while another session drops a schema or renames one of them, and nothing of other schemas', async () => {
      const other = await freshPostgresUrl();
      await admin.query(`create table ${other.schema}.elsewhere (id int)`);
      const db = new Kysely<unknown>({
        dialect: new OwnSchemaPostgresDialect({ pool: new pg.Pool({ connectionString: own.url, max: 2 }) }),
      });
      try {
        await sql`create table if not exists mine (id serial primary key, name text not null)`.execute(db);
        await sql`create table soon_renamed (n int generated always as identity)`.execute(db);
        const tables = await db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute(async (trx) => {
            await sql`select 1 from pg_catalog.pg_namespace limit 1`.execute(trx); // the snapshot starts here
            await other.drop();
            // and a table of our own schema renamed meanwhile (another instance's migration): nothing
            // may look it up by the name the snapshot still holds
            await admin.query(`alter table ${own.schema}.soon_renamed rename to renamed`);
            return trx.introspection.getTables({ withInternalKyselyTables: true });
          });
        expect(tables.map((t) => `${t.schema}.${t.name}`)).toEqual([
          `${own.schema}.mine`,
          `${own.schema}.soon_renamed`,
        ]);
        expect(tables[1]!.columns.map((c) => [c.name, c.isAutoIncrementing])).toEqual([['n', true]]);
        expect(tables[0]!.columns.map((c) => [c.name, c.dataType, c.isNullable, c.isAutoIncrementing])).toEqual([
          ['id', 'int4', false, true],
          ['name', 'text', false, false],
        ]);
      } finally {
        await db.destroy();
      }
    });

    it('describes the migrated schema as Kysely does', async () => {
      const handle = await openDatabase({ kind: 'postgres', url: own.url });
      const stock = new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: own.url, max: 1 }) }),
      });
      try {
        const opts = { withInternalKyselyTables: true };
        const ours = await handle.db.introspection.getTables(opts);
        const theirs = (await stock.introspection.getTables(opts)).filter((t) => t.schema === own.schema);
        expect(ours.length).toBeGreaterThan(5);
        expect(ours).toEqual(theirs);
        const plain = await handle.db.introspection.getTables();
        expect(plain.map((t) => t.name)).not.toContain('kysely_migration');
        expect(plain.length).toBe(ours.length - 2);
        // planned under the cost at which PostgreSQL compiles a query first (0.4-0.6 s here, every start)
        const jitAbove = Number(
          (await sql<{ jit_above_cost: string }>`show jit_above_cost`.execute(handle.db)).rows[0]!.jit_above_cost,
        );
        const { rows } = await sql<{
          'QUERY PLAN': [{ Plan: { 'Total Cost': number } }];
        }>`explain (format json) ${ownColumnsQuery()}`.execute(handle.db);
        const cost = rows[0]!['QUERY PLAN'][0].Plan['Total Cost'];
        const jit = (await sql<{ jit: string }>`show jit`.execute(handle.db)).rows[0]!.jit;
        // (a server with JIT off, or jit_above_cost -1, compiles nothing whatever the cost)
        if (jit === 'on' && jitAbove >= 0) expect(cost, `planned cost ${cost}`).toBeLessThan(jitAbove);
      } finally {
        await stock.destroy();
        await handle.close();
      }
    });
  },
);
