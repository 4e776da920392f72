// The month's render usage (render_usage, kept by triggers on renders) follows the renders: after every
// kind of change of a render that counts (reserve, batch, complete, fail, drop, a dead owner's or a stale
// render failed, delete, purge, and plain SQL as an older release would write it), each account's row
// equals the count of its renders that are pending or completed. Driven through the API where it can be,
// and through render-records.ts for what only crashes and the sweeper do. The migration fills it from the
// renders already there.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/database.js';
import { databaseBefore } from '../helpers/older-database.js';
import { corpusDir } from '../helpers/corpus.js';
import { api, DATABASES, startServer, TestClock, uploadForm, type TestServer } from '../helpers/server.js';
import {
  countRendersThisMonth,
  deletePendingRender,
  failPendingCreatedBefore,
  failPendingOfDeadOwners,
  insertRender,
  insertRenders,
  purgeTombstonesBefore,
  type RenderRow,
} from '../../src/modules/renders/render-records.js';

const corpus = corpusDir();

describe.skipIf(!corpus).each(DATABASES.filter((d) => d.enabled))('render usage ($label)', ({ name }) => {
  let s: TestServer;
  const clock = new TestClock(Date.parse('2030-05-20T10:00:00Z'));

  beforeAll(async () => {
    s = await startServer(name, { overrides: { clock } });
  });
  afterAll(() => s?.close());

  /** Per account and month: the usage row against a count of the renders themselves. */
  async function usageAgainstCount() {
    const counted = await s.runtime.db
      .selectFrom('renders')
      .select(['account_id', 'month', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', 'in', ['pending', 'completed'])
      .groupBy(['account_id', 'month'])
      .execute();
    const usage = await s.runtime.db.selectFrom('render_usage').selectAll().execute();
    const expected = Object.fromEntries(counted.map((r) => [`${r.account_id} ${r.month}`, Number(r.n)]));
    const got = Object.fromEntries(
      usage.filter((u) => u.renders !== 0).map((u) => [`${u.account_id} ${u.month}`, Number(u.renders)]),
    );
    return { expected, got };
  }

  function pending(accountId: string, id: string, over: Partial<RenderRow> = {}): RenderRow {
    return {
      id,
      account_id: accountId,
      template_id: 'tpl_none',
      template_name: 'x.pdf',
      template_version: 1,
      status: 'pending',
      file_size: 0,
      duration_ms: 0,
      warnings: '[]',
      error_code: null,
      error_message: null,
      blob_key: null,
      month: '2030-05',
      created_at: clock.now().toISOString(),
      expires_at: '2030-08-01T00:00:00.000Z',
      deleted_at: null,
      owner: null,
      batch_id: null,
      batch_index: null,
      flattened: 1,
      sha256: null,
      protected: 0,
      signed_with: null,
      ...over,
    };
  }

  it('follows every change of the renders that count', async () => {
    const t = await s.newTenant('Pro');
    const up = await api(s, t).post(
      '/v1/templates',
      uploadForm(readFileSync(path.join(corpus!, 'pdfs/pdfjs-required-fields.pdf')), 'u.pdf'),
    );
    expect(up.status, up.text).toBe(201);

    // completed renders (reserved, then completed), one deleted: all count
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await api(s, t).post('/v1/renders', { templateId: up.json.data.id, data: {} });
      expect(r.status, r.text).toBe(201);
      ids.push(r.json.data.renderId);
    }
    expect((await api(s, t).delete(`/v1/renders/${ids[0]}`)).status).toBe(204);
    expect(await countRendersThisMonth(s.runtime.db, t.accountId, '2030-05')).toBe(3);
    expect((await api(s, t).get('/v1/renders/usage')).json.data.renders.used).toBe(3);

    // a batch reserves its items at once
    const batch = await api(s, t).post('/v1/renders/batch', {
      items: [0, 1].map(() => ({ templateId: up.json.data.id, data: {} })),
    });
    expect(batch.status, batch.text).toBeLessThan(300);
    expect(await countRendersThisMonth(s.runtime.db, t.accountId, '2030-05')).toBe(5);

    // what crashes and the sweeper do: a reservation dropped, a dead owner's render, a stale one
    const db = s.runtime.db;
    await insertRender(db, pending(t.accountId, 'rnd_drop'));
    await insertRender(db, pending(t.accountId, 'rnd_dead', { owner: 'inst_gone' }));
    await insertRender(db, pending(t.accountId, 'rnd_stale', { created_at: '2030-05-01T00:00:00.000Z' }));
    await insertRenders(db, [pending(t.accountId, 'rnd_b1'), pending(t.accountId, 'rnd_b2', { month: '2030-04' })]);
    expect(await countRendersThisMonth(db, t.accountId, '2030-05')).toBe(9);
    expect(await countRendersThisMonth(db, t.accountId, '2030-04')).toBe(1);
    await deletePendingRender(db, t.accountId, 'rnd_drop');
    await deletePendingRender(db, t.accountId, 'rnd_drop'); // already gone: nothing more released
    expect(
      await failPendingOfDeadOwners(db, s.runtime.instanceId, clock.now(), {
        accountId: t.accountId,
        month: '2030-05',
      }),
    ).toBe(1);
    expect(await failPendingCreatedBefore(db, new Date('2030-05-02T00:00:00Z'))).toBeGreaterThanOrEqual(1);
    expect(await countRendersThisMonth(db, t.accountId, '2030-05')).toBe(6);
    let { expected, got } = await usageAgainstCount();
    expect(got).toEqual(expected);

    // renders written by any statement, as an older release still running during an upgrade writes them
    await db.insertInto('renders').values(pending(t.accountId, 'rnd_plain')).execute();
    expect(await countRendersThisMonth(db, t.accountId, '2030-05')).toBe(7);
    await db.updateTable('renders').set({ status: 'completed' }).where('id', '=', 'rnd_plain').execute();
    expect(await countRendersThisMonth(db, t.accountId, '2030-05')).toBe(7);
    await db.updateTable('renders').set({ month: '2030-06' }).where('id', '=', 'rnd_plain').execute();
    expect(await countRendersThisMonth(db, t.accountId, '2030-05')).toBe(6);
    expect(await countRendersThisMonth(db, t.accountId, '2030-06')).toBe(1);
    await db.updateTable('renders').set({ status: 'failed' }).where('id', '=', 'rnd_plain').execute();
    expect(await countRendersThisMonth(db, t.accountId, '2030-06')).toBe(0);
    await db.deleteFrom('renders').where('id', '=', 'rnd_plain').execute();
    ({ expected, got } = await usageAgainstCount());
    expect(got).toEqual(expected);

    // in a transaction that rolls back, nothing changes
    await expect(
      db.transaction().execute(async (trx) => {
        await insertRender(trx, pending(t.accountId, 'rnd_rolled_back'));
        expect(await countRendersThisMonth(trx, t.accountId, '2030-05')).toBe(7);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await countRendersThisMonth(db, t.accountId, '2030-05')).toBe(6);

    // old months' tombstones are purged, and leave their month's usage
    await db.updateTable('renders').set({ deleted_at: clock.now().toISOString() }).where('id', '=', 'rnd_b2').execute();
    expect(await countRendersThisMonth(db, t.accountId, '2030-04')).toBe(1); // a tombstone still counts
    await purgeTombstonesBefore(db, '2030-05');
    expect(await countRendersThisMonth(db, t.accountId, '2030-04')).toBe(0);
    ({ expected, got } = await usageAgainstCount());
    expect(got).toEqual(expected);
  });
});

describe.each(DATABASES.filter((d) => d.enabled))('render usage migration ($label)', ({ name }) => {
  it('fills render_usage from the renders already there', async () => {
    const { config, older, cleanup } = await databaseBefore(name, '0006_render_usage');
    try {
      const db = older;
      await db
        .insertInto('accounts')
        .values({ id: 'acc_m', name: 'm', plan: 'Pro', created_at: '2030-01-01' })
        .execute();
      const base = {
        account_id: 'acc_m',
        template_id: 'tpl_m',
        template_name: 'm.pdf',
        template_version: 1,
        file_size: 0,
        duration_ms: 0,
        warnings: '[]',
        created_at: '2030-05-01',
        expires_at: '2030-08-01',
      };
      await db
        .insertInto('renders')
        .values([
          { ...base, id: 'r1', status: 'completed', month: '2030-05' },
          { ...base, id: 'r2', status: 'pending', month: '2030-05' },
          { ...base, id: 'r3', status: 'failed', month: '2030-05' },
          { ...base, id: 'r4', status: 'completed', month: '2030-05', deleted_at: '2030-05-02' },
          { ...base, id: 'r5', status: 'completed', month: '2030-04' },
        ])
        .execute();
      await older.destroy();

      const now = await openDatabase(config);
      try {
        expect(await countRendersThisMonth(now.db, 'acc_m', '2030-05')).toBe(3);
        expect(await countRendersThisMonth(now.db, 'acc_m', '2030-04')).toBe(1);
      } finally {
        await now.close();
      }
    } finally {
      await cleanup();
    }
  });
});
