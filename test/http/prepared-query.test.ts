// Prepared queries (adapters/db/prepared-query.ts) on the real databases: the same answers as the query
// builder, with every call's own values, in and out of transactions, and a refusal of values that the
// builder would not bind as parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type KyselyPlugin } from 'kysely';
import { openDatabase, type DbHandle } from '../../src/adapters/db/database.js';
import { preparedQuery } from '../../src/adapters/db/prepared-query.js';
import { DATABASES, freshPostgresUrl } from '../helpers/server.js';

const account = (id: string, plan: string) => ({
  id,
  name: `account ${id}`,
  plan,
  created_at: '2030-01-01T00:00:00.000Z',
});

describe.each(DATABASES.filter((d) => d.enabled))('preparedQuery ($label)', ({ name }) => {
  let handle: DbHandle;
  let drop = async () => {};

  beforeAll(async () => {
    if (name === 'postgres') {
      const fresh = await freshPostgresUrl();
      drop = fresh.drop;
      handle = await openDatabase({ kind: 'postgres', url: fresh.url });
    } else handle = await openDatabase({ kind: 'sqlite', file: ':memory:' });
    for (const [id, plan] of [
      ['acc_1', 'Free'],
      ['acc_2', 'Pro'],
      ['acc_3', 'Pro'],
    ])
      await handle.db.insertInto('accounts').values(account(id, plan)).execute();
  });
  afterAll(async () => {
    await handle?.close();
    await drop();
  });

  const byPlan = preparedQuery((db, v: { plan: string; after: string }) =>
    db
      .selectFrom('accounts')
      .select(['id', 'plan'])
      .where('plan', '=', v.plan)
      .where('id', '>', v.after)
      .where('name', 'like', 'account %') // a constant of the builder: stays as it was
      .orderBy('id'),
  );

  it('answers as the builder does, with each call its own values', async () => {
    expect((await byPlan(handle.db, { plan: 'Pro', after: '' })).rows).toEqual([
      { id: 'acc_2', plan: 'Pro' },
      { id: 'acc_3', plan: 'Pro' },
    ]);
    expect((await byPlan(handle.db, { plan: 'Pro', after: 'acc_2' })).rows).toEqual([{ id: 'acc_3', plan: 'Pro' }]);
    expect((await byPlan(handle.db, { plan: 'Free', after: '' })).rows).toEqual([{ id: 'acc_1', plan: 'Free' }]);
    expect((await byPlan(handle.db, { plan: 'Business', after: '' })).rows).toEqual([]);
  });

  it('runs in a transaction, and an update reports the rows it changed', async () => {
    const rename = preparedQuery((db, v: { id: string; name: string }) =>
      db.updateTable('accounts').set({ name: v.name }).where('id', '=', v.id).returning(['id', 'name']),
    );
    await expect(
      handle.db.transaction().execute(async (trx) => {
        const done = await rename(trx, { id: 'acc_1', name: 'renamed' });
        expect(done.rows).toEqual([{ id: 'acc_1', name: 'renamed' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const after = await handle.db.selectFrom('accounts').select('name').where('id', '=', 'acc_1').executeTakeFirst();
    expect(after?.name).toBe('account acc_1');
    const plain = preparedQuery((db, v: { id: string; name: string }) =>
      db.updateTable('accounts').set({ name: v.name }).where('id', '=', v.id),
    );
    expect(Number((await plain(handle.db, { id: 'nobody', name: 'x' })).numAffectedRows)).toBe(0);
  });

  it('takes a whole object of values (a row to insert); a value left undefined is left out, as the builder does', async () => {
    const insert = preparedQuery((db, r: { id: string; name: string; plan?: string; created_at: string }) =>
      db.insertInto('accounts').values({ plan: 'Free', ...r }),
    );
    await insert(handle.db, { ...account('acc_4', 'Pro'), plan: undefined });
    await insert(handle.db, account('acc_5', 'Pro'));
    const got = await handle.db
      .selectFrom('accounts')
      .select(['id', 'plan'])
      .where('id', 'in', ['acc_4', 'acc_5'])
      .orderBy('id')
      .execute();
    expect(got).toEqual([
      { id: 'acc_4', plan: 'Free' },
      { id: 'acc_5', plan: 'Pro' },
    ]);
  });

  it('refuses a value that is not a parameter of the SQL', async () => {
    const spliced = preparedQuery((db, v: { column: string }) =>
      db.selectFrom('accounts').select(sql.ref<string>(v.column).as('c')),
    );
    await expect(spliced(handle.db, { column: 'id' })).rejects.toThrow(/not parameters/);
    const unused = preparedQuery((db, _v: { plan: string }) => db.selectFrom('accounts').select('id'));
    await expect(unused(handle.db, { plan: 'Pro' })).rejects.toThrow(/plan are not parameters/);
  });

  it('builds every time on a database with plugins, so they see each query', async () => {
    let seen = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => {
        seen++;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const db = handle.db.withPlugin(counting);
    await byPlan(db, { plan: 'Pro', after: '' });
    await byPlan(db, { plan: 'Free', after: '' });
    expect(seen).toBe(2);
    const built = await handle.db
      .selectFrom('accounts')
      .select(['id', 'plan'])
      .where('plan', '=', 'Pro')
      .orderBy('id')
      .execute();
    expect((await byPlan(db, { plan: 'Pro', after: '' })).rows).toEqual(built);
  });
});
