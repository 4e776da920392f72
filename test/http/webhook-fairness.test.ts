// Webhook delivery is fair: a hanging receiver holds at most WEBHOOK_ENDPOINT_CONCURRENCY sending slots
// whatever its backlog, and claims go round-robin across accounts, so another tenant's single event is
// delivered while one tenant's dead endpoint keeps failing (it used to wait behind the whole backlog,
// one timeout per slot).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent } from '../../src/modules/events/publish-event.js';
import { claimDueDeliveries } from '../../src/modules/webhooks/delivery-records.js';
import { api, DATABASES, startServer, TestClock, type Tenant, type TestServer } from '../helpers/server.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

describe.each(DATABASES.filter((d) => d.enabled))('fair webhook delivery ($label)', ({ name }) => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  const clock = new TestClock();

  beforeAll(async () => {
    s = await startServer(name, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '20',
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_TIMEOUT_MS: '60000',
      },
      overrides: { clock },
    });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await s?.close();
  });

  const endpointFor = async (t: Tenant, receiver: Receiver) => {
    const res = await api(s, t).post('/v1/webhook-endpoints', { url: receiver.url });
    expect(res.status, res.text).toBe(201);
    receiver.secrets = [res.json.data.secret];
    return res.json.data.id as string;
  };
  const publish = (t: Tenant, n: number, at: Date) =>
    s.runtime.db.transaction().execute(async (trx) => {
      for (let i = 0; i < n; i++)
        await publishEvent(trx, { accountId: t.accountId, type: 'render.completed', data: { id: `rnd_${i}` } }, at);
    });

  // first: its claims are made at a future time, when the other test's attempts in flight would look due
  it('claims round-robin across accounts and caps each endpoint, counting attempts in flight', async () => {
    const a = await s.newTenant('Pro');
    const b = await s.newTenant('Pro');
    const future = new Date(clock.now().getTime() + 3600_000); // beyond what the running worker sees
    // a: two endpoints, 5 older events each; b: one endpoint, 1 newer event
    for (const t of [a, a, b]) {
      const r = await startReceiver();
      receivers.push(r);
      await endpointFor(t, r);
    }
    await publish(a, 5, future);
    await publish(b, 1, new Date(future.getTime() + 1000));
    const at = new Date(future.getTime() + 2000);
    const claim = (token: string, limit: number) =>
      claimDueDeliveries(s.runtime.db, s.runtime.dbKind, {
        token,
        now: at,
        leaseMs: 3600_000,
        limit,
        perEndpoint: 2,
        perAccount: 3,
      });
    const first = await claim('one', 2);
    // b's single newer event comes second, before a's second delivery
    expect(first.map((c) => c.account_id).sort()).toEqual([a.accountId, b.accountId].sort());
    const second = await claim('two', 10);
    // a may have 3 in flight (account cap), at most 2 per endpoint: 2 more of a, nothing else due for b
    expect(second.map((c) => c.account_id)).toEqual([a.accountId, a.accountId]);
    const perEndpoint = new Map<string, number>();
    for (const c of [...first, ...second]) perEndpoint.set(c.endpoint_id, (perEndpoint.get(c.endpoint_id) ?? 0) + 1);
    expect(Math.max(...perEndpoint.values())).toBeLessThanOrEqual(2);
    expect(await claim('three', 10)).toEqual([]);
  });

  it("delivers another tenant's event while one tenant's receiver hangs on a backlog", async () => {
    const hanging = await startReceiver();
    hanging.script = Array.from({ length: 200 }, () => 'hold' as const);
    const fine = await startReceiver();
    receivers.push(hanging, fine);
    const flooder = await s.newTenant('Pro');
    const other = await s.newTenant('Pro');
    await endpointFor(flooder, hanging);
    await endpointFor(other, fine);

    await publish(flooder, 30, clock.now());
    await hanging.waitFor('the hanging receiver to hold its share', () => hanging.received.length >= 2);
    await publish(other, 1, clock.now());
    await fine.waitFor('the other tenant’s event', () => fine.received.length === 1, 30_000);
    expect(fine.received[0].verifiedBy).toEqual([0]);
    // the dead endpoint never held more than its share of the four slots
    expect(hanging.received.length).toBe(2);
  });
});
