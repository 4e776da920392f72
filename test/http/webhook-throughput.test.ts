// Webhook delivery keeps up with its events: an attempt that ends polls again at once, so a fast receiver
// gets a backlog as fast as it answers, within its endpoint's share. It used to wait for the next poll
// interval, which capped every endpoint at WEBHOOK_ENDPOINT_CONCURRENCY deliveries per WEBHOOK_POLL_MS
// (2 a second by default): under a steadier flow of events the pending deliveries grew without end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent } from '../../src/modules/events/publish-event.js';
import { api, DATABASES, startServer, type TestServer } from '../helpers/server.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

// long enough that the rest of the backlog fits before the next interval on a loaded machine
const POLL_MS = 10_000;
const EVENTS = 20;

describe.each(DATABASES.filter((d) => d.enabled))('webhook delivery throughput ($label)', ({ name }) => {
  let s: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    s = await startServer(name, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: String(POLL_MS) } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });

  it('delivers a backlog to one endpoint without waiting a poll interval per share', async () => {
    const res = await api(s, s.b).post('/v1/webhook-endpoints', { url: receiver.url });
    expect(res.status, res.text).toBe(201);
    await s.runtime.db.transaction().execute(async (trx) => {
      for (let i = 0; i < EVENTS; i++)
        await publishEvent(
          trx,
          { accountId: s.b.accountId, type: 'render.completed', data: { id: `rnd_${i}` } },
          s.runtime.clock.now(),
        );
    });
    // the next poll (within POLL_MS) finds them; two go at once (the endpoint's share)
    await receiver.waitFor('the first delivery', () => receiver.received.length > 0, 2 * POLL_MS);
    // the rest follow as attempts end, before the next interval would have taken two more
    await receiver.waitFor(
      `all ${EVENTS} deliveries before the next poll interval`,
      () => receiver.received.length >= EVENTS,
      POLL_MS - 1000,
    );
    expect(new Set(receiver.received.map((r) => r.json.data.id)).size).toBe(EVENTS);
  });
});
