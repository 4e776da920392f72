// The main process is shared between accounts (issue 27): while one account holds more than its share of
// requests in flight, its next requests wait before their body is read, and another account's requests go
// ahead of them. Counted in answers and their order, never in milliseconds: the hammer's requests are held
// in flight by bodies that have not finished arriving, and the loop is treated as busy throughout.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MainShare } from '../../src/adapters/admission/main-share.js';
import { api, DATABASES, startServer, type Tenant, type TestServer } from '../helpers/server.js';

/** A POST whose body stops after its first byte: admitted, then in flight until `finish()`. */
function heldRequest(s: TestServer, t: Tenant): { answer: Promise<number>; finish(): void } {
  const req = http.request(`${s.url}/v1/renders`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', 'content-length': '2' },
  });
  const answer = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write('{');
  return { answer, finish: () => req.end('}') };
}

/** Polls a condition the server reaches on its own (no deadline but the test's). */
async function until(what: () => boolean): Promise<void> {
  while (!what()) await new Promise((r) => setTimeout(r, 5));
}

describe.each(DATABASES.filter((d) => d.enabled))('main-process share between accounts ($label)', ({ name }) => {
  describe('admission order', () => {
    let s: TestServer;
    let share: MainShare;
    beforeAll(async () => {
      s = await startServer(name, {
        // the budget of unpaid work off: the admission is the share alone
        env: {
          MAIN_SHARE_SLOTS: '4',
          MAIN_SHARE_BUSY_PERCENT: '0',
          BODY_MIN_BYTES_PER_SECOND: '0',
          UNPAID_WORK_PER_MINUTE: '0',
        },
      });
      share = s.runtime.admission as MainShare;
    });
    afterAll(async () => s?.close());

    it("admits the other account's request ahead of the requests the hammer has waiting", async () => {
      const hammer = s.a;
      const victim = s.b;
      // the hammer alone: nothing holds it, its three requests go in
      const held = [heldRequest(s, hammer), heldRequest(s, hammer), heldRequest(s, hammer)];
      await until(() => share.state(hammer.accountId).inFlight === 3);
      const victimHeld = heldRequest(s, victim);
      await until(() => share.state(victim.accountId).inFlight === 1);

      // the hammer is over an equal share with 3 in flight: at most 4 slots / 2 accounts = 2 for it now
      const order: string[] = [];
      const queued = [0, 1].map(() =>
        api(s, hammer)
          .get('/v1/templates')
          .then((r) => {
            order.push(`hammer ${r.status}`);
            return r;
          }),
      );
      await until(() => share.state(hammer.accountId).waiting === 2);

      const v = await api(s, victim).get('/v1/templates');
      order.push(`victim ${v.status}`);
      expect(v.status).toBe(200);
      expect(share.state(hammer.accountId)).toEqual({ inFlight: 3, waiting: 2 });

      // one held request ends: 2 in flight, still its whole part; a second ends: the waiting go on, in turn
      held[0]!.finish();
      expect(await held[0]!.answer).toBe(422);
      expect(share.state(hammer.accountId).waiting).toBe(2);
      held[1]!.finish();
      await Promise.all(queued);
      expect(order).toEqual(['victim 200', 'hammer 200', 'hammer 200']);

      held[2]!.finish();
      victimHeld.finish();
      expect(await held[2]!.answer).toBe(422);
      expect(await victimHeld.answer).toBe(422);
      await until(() => share.state(hammer.accountId).inFlight === 0 && share.state(victim.accountId).inFlight === 0);
      // operators see the waits: the hammer's two, admitted
      const metrics = (await api(s).get('/metrics')).text;
      expect(metrics).toMatch(/^formcast_admission_wait_seconds_count\{outcome="admitted"\} 2$/m);
    });
  });

  describe('a request that waits too long', () => {
    let s: TestServer;
    let share: MainShare;
    beforeAll(async () => {
      s = await startServer(name, {
        env: {
          MAIN_SHARE_SLOTS: '2',
          MAIN_SHARE_BUSY_PERCENT: '0',
          MAIN_SHARE_WAIT_MS: '300',
          BODY_MIN_BYTES_PER_SECOND: '0',
          UNPAID_WORK_PER_MINUTE: '0',
        },
      });
      share = s.runtime.admission as MainShare;
    });
    afterAll(async () => s?.close());

    it('answers 503 SERVICE_UNAVAILABLE with Retry-After, and the other account is still served', async () => {
      const held = [heldRequest(s, s.a), heldRequest(s, s.a)];
      await until(() => share.state(s.a.accountId).inFlight === 2);
      const victimHeld = heldRequest(s, s.b);
      await until(() => share.state(s.b.accountId).inFlight === 1);

      const late = await api(s, s.a).get('/v1/templates');
      expect(late.status).toBe(503);
      expect(late.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(late.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(share.state(s.a.accountId).waiting).toBe(0);
      expect((await api(s, s.b).get('/v1/templates')).status).toBe(200);
      expect((await api(s).get('/metrics')).text).toMatch(
        /^formcast_admission_wait_seconds_count\{outcome="timed_out"\} 1$/m,
      );

      for (const h of [...held, victimHeld]) h.finish();
      for (const h of [...held, victimHeld]) expect(await h.answer).toBe(422);
    });
  });
});
