// Webhooks end to end over HTTP, on every storage backend: endpoints CRUD within the plan, events
// delivered to a real receiver on loopback that verifies signatures with the `standardwebhooks` package,
// retries on an injected clock, secret rotation, the delivery log, manual retry, test events, the
// template and usage events, disabling of an endpoint failing for days, and the counters.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, TestClock, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { publishEvent } from '../../src/modules/events/publish-event.js';
import { newDeliveryRow } from '../../src/modules/webhooks/delivery-records.js';
import { purgeOldEvents } from '../../src/modules/webhooks/purge-events.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const FORM = 'pdfjs-required-fields.pdf';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `webhooks over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 120_000 },
    () => {
      let s: TestServer;
      let receiver: Receiver;
      const clock = new TestClock();

      beforeAll(async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
        writeFileSync(
          path.join(dir, 'plans.json'),
          JSON.stringify({ Pro: { webhookEndpoints: 2 }, Business: { rendersPerMonth: 5 } }),
        );
        s = await startServer(db.name, {
          env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', PLANS_FILE: path.join(dir, 'plans.json') },
          overrides: { clock },
        });
      });
      afterAll(async () => s?.close());
      afterEach(async () => receiver?.close());

      /** A new tenant with one endpoint pointing at a fresh receiver. */
      const setup = async (plan = 'Pro', body: Record<string, unknown> = {}) => {
        receiver = await startReceiver();
        const t = await s.newTenant(plan);
        const res = await api(s, t).post('/v1/webhook-endpoints', { url: receiver.url, ...body });
        expect(res.status).toBe(201);
        receiver.secrets = [res.json.data.secret];
        return { t, endpoint: res.json.data };
      };
      const deliveries = async (t: Tenant, endpointId: string) =>
        (await api(s, t).get(`/v1/webhook-endpoints/${endpointId}/deliveries`)).json.data as any[];

      it('answers 403 WEBHOOKS_NOT_ENABLED on a plan without webhooks, on every webhook route', async () => {
        for (const [method, url] of [
          ['POST', '/v1/webhook-endpoints'],
          ['GET', '/v1/webhook-endpoints'],
          ['GET', '/v1/webhook-endpoints/whk_x'],
          ['POST', '/v1/webhook-deliveries/whd_x/retry'],
        ]) {
          const res = await fetch(s.url + url, {
            method,
            headers: { authorization: `Bearer ${s.a.key}`, 'content-type': 'application/json' },
            body: method === 'POST' ? JSON.stringify({ url: 'https://example.com/hook' }) : undefined,
          });
          expect(res.status, url).toBe(403);
          expect(((await res.json()) as any).error.code).toBe('WEBHOOKS_NOT_ENABLED');
        }
      });

      it('documents every webhook route in the OpenAPI document', async () => {
        const doc = (await api(s).get('/v1/openapi.json')).json;
        expect(Object.keys(doc.paths)).toEqual(
          expect.arrayContaining([
            '/v1/webhook-endpoints',
            '/v1/webhook-endpoints/{id}',
            '/v1/webhook-endpoints/{id}/rotate-secret',
            '/v1/webhook-endpoints/{id}/test',
            '/v1/webhook-endpoints/{id}/deliveries',
            '/v1/webhook-endpoints/{id}/log',
            '/v1/webhook-deliveries/{id}',
            '/v1/webhook-deliveries/{id}/retry',
          ]),
        );
        expect(Object.keys(doc.paths['/v1/webhook-endpoints/{id}'])).toEqual(
          expect.arrayContaining(['get', 'patch', 'delete']),
        );
        expect(doc.paths['/v1/webhook-endpoints'].post.responses['201']).toBeTruthy();
      });

      it('creates, lists, reads, changes and deletes endpoints; the secret is shown once; the plan limits them', async () => {
        const t = await s.newTenant('Pro');
        const created = await api(s, t).post('/v1/webhook-endpoints', {
          url: 'https://hooks.example.com/formcast',
          events: ['template.created', 'render.completed'],
          description: 'CRM',
        });
        expect(created.status).toBe(201);
        const e = created.json.data;
        expect(e).toMatchObject({
          url: 'https://hooks.example.com/formcast',
          events: ['template.created', 'render.completed'],
          description: 'CRM',
          enabled: true,
          disabledReason: null,
        });
        expect(e.id).toMatch(/^whk_/);
        expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        // stored sealed: the database alone does not give the secret away
        const stored = await s.runtime.db
          .selectFrom('webhook_endpoints')
          .select('secret')
          .where('id', '=', e.id)
          .executeTakeFirstOrThrow();
        expect(stored.secret).not.toContain(e.secret.slice(6));

        const read = await api(s, t).get(`/v1/webhook-endpoints/${e.id}`);
        expect(read.status).toBe(200);
        expect(read.json.data).not.toHaveProperty('secret');
        const list = await api(s, t).get('/v1/webhook-endpoints');
        expect(list.json.meta.total).toBe(1);
        expect(list.json.data[0]).not.toHaveProperty('secret');

        const patched = await api(s, t).patch(`/v1/webhook-endpoints/${e.id}`, { events: ['*'], enabled: false });
        expect(patched.status).toBe(200);
        expect(patched.json.data).toMatchObject({ events: ['*'], enabled: false });
        expect((await api(s, t).patch(`/v1/webhook-endpoints/${e.id}`, {})).json.error.code).toBe('VALIDATION_ERROR');
        const bad = await api(s, t).patch(`/v1/webhook-endpoints/${e.id}`, { events: ['render.exploded'] });
        expect(bad.status).toBe(422);
        expect(bad.json.error.details.field).toBe('events');
        expect(
          (await api(s, t).patch(`/v1/webhook-endpoints/${e.id}`, { events: ['*', 'template.created'] })).status,
        ).toBe(422);

        // another tenant sees nothing: the same 404 as a missing id
        const other = await api(s, s.b).get(`/v1/webhook-endpoints/${e.id}`);
        expect(other.status).toBe(404);
        expect(other.json.error.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
        expect((await api(s, s.b).delete(`/v1/webhook-endpoints/${e.id}`)).status).toBe(404);

        // the plans file gives Pro 2 endpoints
        expect((await api(s, t).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/2' })).status).toBe(
          201,
        );
        const third = await api(s, t).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/3' });
        expect(third.status).toBe(403);
        expect(third.json.error.code).toBe('WEBHOOK_ENDPOINT_LIMIT_REACHED');
        expect((await api(s, t).delete(`/v1/webhook-endpoints/${e.id}`)).status).toBe(204);
        expect((await api(s, t).get(`/v1/webhook-endpoints/${e.id}`)).status).toBe(404);
        expect((await api(s, t).post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/3' })).status).toBe(
          201,
        );

        const log = await api(s, t).get(`/v1/webhook-endpoints/${list.json.data[0].id}/log`);
        expect(log.status).toBe(404); // deleted with its endpoint
      });

      it('delivers template.created, signed so that standardwebhooks verifies it, with the API template shape', async () => {
        const { t, endpoint } = await setup('Pro', { events: ['template.created'] });
        const uploaded = await api(s, t).post('/v1/templates', uploadForm(pdf(FORM), FORM));
        expect(uploaded.status).toBe(201);
        await receiver.waitFor('the delivery', () => receiver.received.length === 1);
        const got = receiver.received[0];
        expect(got.verifiedBy).toEqual([0]);
        expect(got.json).toEqual({
          id: got.id,
          type: 'template.created',
          createdAt: expect.stringMatching(/Z$/),
          data: uploaded.json.data,
        });
        expect(got.id).toMatch(/^evt_/);
        const [d] = await until('the delivery to be recorded', async () => {
          const list = await deliveries(t, endpoint.id);
          return list[0]?.status === 'succeeded' ? list : undefined;
        });
        expect(d).toMatchObject({ eventId: got.id, eventType: 'template.created', attempts: 1, lastStatusCode: 200 });
        expect(d.attemptLog).toHaveLength(1);
        expect(d.lastDurationMs).toBeGreaterThanOrEqual(0);
        // not subscribed: no delivery for other types
        await api(s, t).patch(`/v1/templates/${uploaded.json.data.id}`, { name: 'renamed' });
        const full = await api(s, t).get(`/v1/webhook-deliveries/${d.id}`);
        expect(full.json.data.payload).toEqual(got.json);
        expect((await deliveries(t, endpoint.id)).length).toBe(1);
      });

      it('retries 500, 500, 500 then 200: four attempts with the same webhook-id and growing delays', async () => {
        const { t, endpoint } = await setup();
        receiver.script = [500, 500, 500];
        await s.runtime.db
          .transaction()
          .execute((trx) =>
            publishEvent(trx, { accountId: t.accountId, type: 'render.completed', data: { id: 'rnd_x' } }, clock.now()),
          );
        for (let n = 1; n <= 4; n++) {
          await receiver.waitFor(`attempt ${n}`, () => receiver.received.length === n);
          if (n === 4) break;
          const d = await until(`attempt ${n} to be recorded`, async () => {
            const [x] = await deliveries(t, endpoint.id);
            return x?.attempts === n && x.nextAttemptAt ? x : undefined;
          });
          expect(d.status).toBe('pending');
          expect(receiver.received.length).toBe(n); // nothing more until the clock reaches the next attempt
          clock.set(d.nextAttemptAt);
        }
        expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
        expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
        expect(receiver.received.map((r) => r.body)).toEqual(Array(4).fill(receiver.received[0].body));
        const d = await until('success to be recorded', async () => {
          const [x] = await deliveries(t, endpoint.id);
          return x?.status === 'succeeded' ? x : undefined;
        });
        expect(d.attempts).toBe(4);
        expect(d.attemptLog.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 200]);
        const at = d.attemptLog.map((a: any) => Date.parse(a.at));
        const gaps = at.slice(1).map((x: number, i: number) => x - at[i]);
        // the published schedule, +/-10 % jitter: 5 s, 5 min, 30 min
        expect(gaps[0]).toBeGreaterThanOrEqual(4_500);
        expect(gaps[0]).toBeLessThanOrEqual(5_500);
        expect(gaps[1]).toBeGreaterThanOrEqual(270_000);
        expect(gaps[2]).toBeGreaterThanOrEqual(1_620_000);
        expect(gaps[1]).toBeGreaterThan(gaps[0]);
        expect(gaps[2]).toBeGreaterThan(gaps[1]);
        expect(d.attemptLog[0].error).toContain('HTTP 500');
        expect(receiver.deliveredOnce(receiver.received[0].id)).toBe(1);
      });

      it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
        const { t, endpoint } = await setup();
        const old = receiver.secrets[0];
        const rotated = await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
        expect(rotated.status).toBe(200);
        expect(rotated.json.data.secret).toMatch(/^whsec_/);
        expect(rotated.json.data.secret).not.toBe(old);
        expect(Date.parse(rotated.json.data.previousSecretExpiresAt) - clock.now().getTime()).toBe(24 * 3600_000);
        receiver.secrets = [old, rotated.json.data.secret];
        await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`);
        await receiver.waitFor('the first test event', () => receiver.received.length === 1);
        expect(receiver.received[0].verifiedBy).toEqual([0, 1]);
        expect(receiver.received[0].signature.split(' ')).toHaveLength(2);

        clock.advance(24 * 3600_000 + 1000);
        await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`);
        await receiver.waitFor('the second test event', () => receiver.received.length === 2);
        expect(receiver.received[1].verifiedBy).toEqual([1]);
        expect((await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}`)).json.data.previousSecretExpiresAt).toBe(
          null,
        );
        const log = (await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}/log`)).json.data;
        expect(log.map((e: any) => e.type)).toEqual(['secret.rotated', 'created']);
      });

      it('sends a test event, lists deliveries by status and retries a failed one with the same webhook-id', async () => {
        const { t, endpoint } = await setup();
        receiver.script = [500];
        const test = await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`);
        expect(test.status).toBe(202);
        expect(test.json.data).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0 });
        await receiver.waitFor('the test event', () => receiver.received.length === 1);
        expect(receiver.received[0].json).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
        await until('the failure to be recorded', async () =>
          (await deliveries(t, endpoint.id))[0]?.attempts === 1 ? true : undefined,
        );
        const pending = await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}/deliveries?status=pending`);
        expect(pending.json.meta.total).toBe(1);
        expect(
          (await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}/deliveries?status=succeeded`)).json.meta.total,
        ).toBe(0);
        expect((await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}/deliveries?status=nope`)).status).toBe(422);

        // retry now, without waiting for the schedule (the clock does not move)
        const retried = await api(s, t).post(`/v1/webhook-deliveries/${test.json.data.id}/retry`);
        expect(retried.status).toBe(202);
        await receiver.waitFor('the retry', () => receiver.received.length === 2);
        expect(receiver.received[1].id).toBe(receiver.received[0].id);
        await until('the success', async () =>
          (await deliveries(t, endpoint.id))[0]?.status === 'succeeded' ? true : undefined,
        );
        // a succeeded delivery can be sent again on request
        expect((await api(s, t).post(`/v1/webhook-deliveries/${test.json.data.id}/retry`)).status).toBe(202);
        await receiver.waitFor('the resend', () => receiver.received.length === 3);
        expect((await api(s, s.b).post(`/v1/webhook-deliveries/${test.json.data.id}/retry`)).status).toBe(404);
        expect((await api(s, s.b).get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).status).toBe(404);
      });

      it('sends template.updated on PATCH and on a new file version, and template.deleted', async () => {
        const { t } = await setup('Pro', { events: ['template.updated', 'template.deleted'] });
        const tpl = (await api(s, t).post('/v1/templates', uploadForm(pdf(FORM), FORM))).json.data;
        const patched = (await api(s, t).patch(`/v1/templates/${tpl.id}`, { description: 'new words' })).json.data;
        const replaced = await api(s, t).put(`/v1/templates/${tpl.id}/file`, uploadForm(pdf(FORM), 'v2.pdf'));
        expect(replaced.json.data.version).toBe(2);
        // a refused change sends nothing
        await api(s, t).patch(`/v1/templates/${tpl.id}`, { isFrozen: true });
        expect((await api(s, t).patch(`/v1/templates/${tpl.id}`, { name: 'x' })).status).toBe(409);
        await api(s, t).patch(`/v1/templates/${tpl.id}`, { isFrozen: false });
        expect((await api(s, t).delete(`/v1/templates/${tpl.id}`)).status).toBe(204);
        await receiver.waitFor('five events', () => receiver.received.length === 5);
        // exactly these five were recorded: the PATCH refused with 409 sent nothing
        const recorded = await s.runtime.db
          .selectFrom('webhook_deliveries')
          .select('event_type')
          .where('account_id', '=', t.accountId)
          .execute();
        expect(recorded).toHaveLength(5);
        // Standard Webhooks promise no order: compare as a set
        expect(receiver.received.map((r) => r.json.type).sort()).toEqual([
          'template.deleted',
          'template.updated',
          'template.updated',
          'template.updated',
          'template.updated',
        ]);
        const datas = receiver.received.map((r) => r.json.data);
        expect(datas).toContainEqual(patched);
        // the event carries the template; the answer adds how the new file's fields map to the old
        const { fieldMapping, ...replacedTemplate } = replaced.json.data;
        expect(fieldMapping).toBeTruthy();
        expect(datas).toContainEqual(replacedTemplate);
        expect(datas.find((d) => d.version === 2 && d.isFrozen === true)).toBeTruthy();
        expect(receiver.received.find((r) => r.json.type === 'template.deleted')!.json.data.id).toBe(tpl.id);
        expect(receiver.received.every((r) => r.verifiedBy.length === 1)).toBe(true);
      });

      it('sends usage.renders.threshold at 80 % and 100 % of the month, once each, under parallel renders', async () => {
        const { t } = await setup('Business', { events: ['usage.renders.threshold'] });
        const tpl = (await api(s, t).post('/v1/templates', uploadForm(pdf(FORM), FORM))).json.data;
        // quota 5: the 4th render is 80 %, the 5th 100 %; 8 in parallel give 5 successes
        const results = await Promise.all(
          Array.from({ length: 8 }, () => api(s, t).post('/v1/renders', { templateId: tpl.id, data: {} })),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(5);
        await receiver.waitFor('two threshold events', () => receiver.received.length === 2);
        const month = clock.now().toISOString().slice(0, 7);
        expect(receiver.received.map((r) => r.json.data).sort((a, b) => a.threshold - b.threshold)).toEqual([
          { month, threshold: 80, renders: { used: 4, limit: 5 } },
          { month, threshold: 100, renders: { used: 5, limit: 5 } },
        ]);
        const events = await s.runtime.db
          .selectFrom('events')
          .select('type')
          .where('account_id', '=', t.accountId)
          .where('type', '=', 'usage.renders.threshold')
          .execute();
        expect(events).toHaveLength(2);
      });

      it('disables an endpoint whose attempts have failed for 5 days, with an entry in its log', async () => {
        const { t, endpoint } = await setup();
        receiver.script = Array(20).fill(503);
        await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`);
        await receiver.waitFor('the first failure', () => receiver.received.length === 1);
        await until('the failure to be recorded', async () =>
          (await deliveries(t, endpoint.id))[0]?.attempts === 1 ? true : undefined,
        );
        clock.advance(121 * 3600_000); // past WEBHOOK_DISABLE_AFTER_HOURS (120 by default)
        expect((await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(202);
        const got = await until('the endpoint to be disabled', async () => {
          const e = (await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}`)).json.data;
          return e.enabled ? undefined : e;
        });
        expect(got.disabledReason).toBe('failing');
        const log = (await api(s, t).get(`/v1/webhook-endpoints/${endpoint.id}/log`)).json.data;
        expect(log[0]).toMatchObject({ type: 'disabled' });
        expect(log[0].message).toContain('disabled by the service');
        // whichever attempt came first after 5 days disabled it; everything still scheduled was stopped, and
        // an attempt in flight at that moment (both were due once the clock moved) finishes as failed too
        const all = await until('no attempt in flight', async () => {
          const list = await deliveries(t, endpoint.id);
          return list.some((d) => d.status === 'pending') ? undefined : list;
        });
        expect(all.map((d) => d.status)).toEqual(['failed', 'failed']);
        expect(all.map((d) => d.nextAttemptAt)).toEqual([null, null]);
        // events published while disabled create no deliveries; enabling again resumes
        await api(s, t).post('/v1/templates', uploadForm(pdf(FORM), FORM));
        expect((await deliveries(t, endpoint.id)).length).toBe(2);
        const enabled = await api(s, t).patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: true });
        expect(enabled.json.data).toMatchObject({ enabled: true, disabledReason: null });
        const metrics = await fetch(`${s.url}/metrics`).then((r) => r.text());
        expect(metrics).toMatch(/formcast_webhook_endpoints_disabled_total \d+/);
        expect(metrics).toMatch(/formcast_webhook_attempts_total\{outcome="http_error"\} \d+/);
        expect(metrics).toMatch(/formcast_webhook_deliveries_total\{status="failed"\} \d+/);
      });

      it('purges events and finished deliveries after EVENT_RETENTION_DAYS, keeping what may still be sent', async () => {
        const t = await s.newTenant('Pro');
        const e = (await api(s, t).post('/v1/webhook-endpoints', { url: 'https://93.184.215.14/hook', enabled: false }))
          .json.data;
        const old = new Date(clock.now().getTime() - 31 * 86_400_000);
        const publish = (at: Date) =>
          s.runtime.db
            .transaction()
            .execute((trx) =>
              publishEvent(trx, { accountId: t.accountId, type: 'template.created', data: { id: 'tpl_x' } }, at),
            );
        const [oldDone, oldPending, oldAlone, recent] = [
          await publish(old),
          await publish(old),
          await publish(old),
          await publish(clock.now()),
        ];
        const done = { ...newDeliveryRow({ eventId: oldDone, accountId: t.accountId, type: 'x' }, e.id, old) };
        const pending = { ...newDeliveryRow({ eventId: oldPending, accountId: t.accountId, type: 'x' }, e.id, old) };
        await s.runtime.db
          .insertInto('webhook_deliveries')
          .values([
            { ...done, status: 'succeeded', next_attempt_at: null },
            { ...pending, next_attempt_at: new Date(clock.now().getTime() + 86_400_000).toISOString() },
          ])
          .execute();
        await purgeOldEvents(s.runtime);
        const events = await s.runtime.db
          .selectFrom('events')
          .select('id')
          .where('account_id', '=', t.accountId)
          .execute();
        expect(events.map((x) => x.id).sort()).toEqual([oldPending, recent].sort());
        expect(oldAlone).toBeTruthy();
        const left = await s.runtime.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('account_id', '=', t.accountId)
          .execute();
        expect(left.map((x) => x.id)).toEqual([pending.id]);
      });

      it('keeps delivering to other endpoints while one receiver hangs', async () => {
        const { t, endpoint } = await setup();
        receiver.script = ['hold'];
        const other = await startReceiver();
        try {
          const second = (await api(s, t).post('/v1/webhook-endpoints', { url: other.url })).json.data;
          other.secrets = [second.secret];
          await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`);
          await receiver.waitFor('the hanging attempt', () => receiver.received.length === 1);
          await api(s, t).post(`/v1/webhook-endpoints/${second.id}/test`);
          await other.waitFor('the other delivery', () => other.deliveredOnce(other.received[0]?.id ?? '') === 1);
          const [hanging] = await deliveries(t, endpoint.id);
          expect(hanging).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, attemptLog: [] });
        } finally {
          await other.close();
        }
      });

      it('does not follow a redirect, even to a receiver it could reach', async () => {
        const { t, endpoint } = await setup();
        const target = await startReceiver();
        try {
          receiver.script = [302];
          receiver.headers = { location: target.url };
          await api(s, t).post(`/v1/webhook-endpoints/${endpoint.id}/test`);
          const d = await until('the attempt', async () => {
            const [x] = await deliveries(t, endpoint.id);
            return x?.attempts === 1 && x.lastStatusCode ? x : undefined;
          });
          expect(d.lastStatusCode).toBe(302);
          expect(d.lastError).toContain('redirect');
          expect(d.status).toBe('pending'); // a failed attempt, retried on the schedule
          expect(target.received).toHaveLength(0);
          expect(target.connections).toBe(0);
        } finally {
          await target.close();
        }
      });
    },
  );
}

describe('webhook URLs are refused when they can reach private addresses (WEBHOOK_ALLOW_PRIVATE unset)', () => {
  let s: TestServer;
  let t: Tenant;
  beforeAll(async () => {
    s = await startServer('sqlite', { env: { WEBHOOK_POLL_MS: '20' } });
    t = s.b;
  });
  afterAll(async () => s?.close());

  const refused = [
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://017700000001/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00:ec2::254]/latest',
    'https://10.0.0.1/hook',
    'https://192.168.1.10/hook',
    'https://172.16.0.1/hook',
    'https://100.100.100.200/hook',
    'https://0.0.0.0/hook',
    'https://[fe80::1]/hook',
    'https://[64:ff9b::a00:1]/hook',
    'https://localhost/hook',
    'http://example.com/hook',
    'file:///etc/passwd',
    'ftp://example.com/hook',
    'https://user:pass@example.com/hook',
    'not a url',
  ];
  for (const url of refused) {
    it(`refuses ${url} with 422 VALIDATION_ERROR on url, on create and on change`, async () => {
      const res = await api(s, t).post('/v1/webhook-endpoints', { url });
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.details.field).toBe('url');
    });
  }

  it('checks the address it dials: a saved name that now resolves to loopback is not connected to', async () => {
    const receiver = await startReceiver();
    try {
      const created = await api(s, t).post('/v1/webhook-endpoints', { url: 'https://93.184.215.14/hook' });
      expect(created.status).toBe(201);
      expect(
        (await api(s, t).patch(`/v1/webhook-endpoints/${created.json.data.id}`, { url: receiver.url })).status,
      ).toBe(422);
      // as if its DNS changed after it was saved (rebinding): the stored name resolves to 127.0.0.1 now
      await s.runtime.db
        .updateTable('webhook_endpoints')
        .set({ url: `https://localhost:${receiver.port}/hook` })
        .where('id', '=', created.json.data.id)
        .execute();
      await api(s, t).post(`/v1/webhook-endpoints/${created.json.data.id}/test`);
      const d = await until('the refused attempt', async () => {
        const [x] = (await api(s, t).get(`/v1/webhook-endpoints/${created.json.data.id}/deliveries`)).json.data;
        return x?.attempts === 1 && x.lastError ? x : undefined;
      });
      expect(d.lastStatusCode).toBe(null);
      expect(d.lastError).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback/);
      expect(receiver.connections).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
