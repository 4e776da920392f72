// Two server instances on one PostgreSQL database deliver webhooks side by side: each attempt is made
// once (FOR UPDATE SKIP LOCKED claims), retries included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, freshPostgresUrl, startServer, TestClock, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { publishEvent } from '../../src/modules/events/publish-event.js';
import { claimDueDeliveries } from '../../src/modules/webhooks/delivery-records.js';

const pgUrl = process.env.TEST_DATABASE_URL;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!pgUrl)(
  `webhooks from two instances on one PostgreSQL${pgUrl ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  { timeout: 180_000 },
  () => {
    let one: TestServer;
    let two: TestServer;
    let receiver: Receiver;
    let cleanup: () => Promise<void>;
    const clock = new TestClock();

    beforeAll(async () => {
      const db = await freshPostgresUrl();
      receiver = await startReceiver();
      const env = {
        DATABASE_URL: db.url,
        SIGNING_SECRET: 'x'.repeat(40),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '10',
        WEBHOOK_CONCURRENCY: '4',
      };
      [one, two] = await Promise.all([
        startServer('postgres', { env, overrides: { clock } }),
        startServer('postgres', { env, overrides: { clock } }),
      ]);
      cleanup = async () => {
        await one?.close();
        await two?.close();
        await receiver?.close();
        await db.drop();
      };
    });
    afterAll(async () => cleanup?.());

    it('claims each due delivery once when claims race on two connection pools', async () => {
      const t = await one.newTenant('Pro');
      // an endpoint the running workers cannot reach soon: its deliveries are claimed by this test alone
      const e = (await api(one, t).post('/v1/webhook-endpoints', { url: 'https://192.0.2.1/never' })).json.data;
      expect(e.id).toMatch(/^whk_/);
      const future = new Date(clock.now().getTime() + 3600_000);
      for (let i = 0; i < 60; i++)
        await one.runtime.db
          .transaction()
          .execute((trx) =>
            publishEvent(trx, { accountId: t.accountId, type: 'render.completed', data: { id: `rnd_${i}` } }, future),
          );
      const at = new Date(future.getTime() + 1000);
      const claims = await Promise.all(
        [one, two, one, two, one, two].map((s, i) =>
          claimDueDeliveries(s.runtime.db, 'postgres', {
            token: `race-${i}`,
            now: at,
            leaseMs: 3600_000,
            limit: 15,
            perEndpoint: 1000,
            perAccount: 1000,
          }),
        ),
      );
      const ids = claims.flat().map((c) => c.id);
      expect(ids).toHaveLength(60); // 6 claims of 15 for 60 due: every one claimed...
      expect(new Set(ids).size).toBe(60); // ...by exactly one claim
      expect(claims.flat().every((c) => c.attempts === 1)).toBe(true);
    });

    it('makes every attempt once across the two instances, first attempts and retries', async () => {
      const t = await one.newTenant('Pro');
      const created = await api(two, t).post('/v1/webhook-endpoints', { url: receiver.url });
      receiver.secrets = [created.json.data.secret];
      receiver.answer = (_id, seenBefore) => (seenBefore === 0 ? 500 : 200); // each event fails once
      const N = 40;
      for (let i = 0; i < N; i++)
        await (i % 2 ? one : two).runtime.db
          .transaction()
          .execute((trx) =>
            publishEvent(
              trx,
              { accountId: t.accountId, type: 'render.completed', data: { id: `rnd_${i}` } },
              clock.now(),
            ),
          );
      await receiver.waitFor('the first attempts', () => receiver.received.length === N, 120_000);
      await until('the first attempts to be recorded', async () => {
        const rows = await one.runtime.db
          .selectFrom('webhook_deliveries')
          .select(['attempts', 'claimed_by'])
          .where('account_id', '=', t.accountId)
          .execute();
        return rows.every((r) => r.attempts === 1 && r.claimed_by === null) ? true : undefined;
      });
      clock.advance(6_000); // past the 5 s (+10 %) of the second attempt
      await receiver.waitFor('the retries', () => receiver.received.length === 2 * N, 120_000);
      const rows = await until('every delivery to succeed', async () => {
        const r = await one.runtime.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('account_id', '=', t.accountId)
          .execute();
        return r.every((d) => d.status === 'succeeded') ? r : undefined;
      });
      expect(rows).toHaveLength(N);
      expect(rows.every((d) => d.attempts === 2)).toBe(true);
      const perId = new Map<string, number>();
      for (const r of receiver.received) perId.set(r.id, (perId.get(r.id) ?? 0) + 1);
      expect(perId.size).toBe(N);
      expect([...perId.values()].every((n) => n === 2)).toBe(true);
      expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
      for (const id of perId.keys()) expect(receiver.deliveredOnce(id)).toBe(1);
    });
  },
);
