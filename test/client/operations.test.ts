// Every operation of @formcast/client against a real server, on every backend: template file, JSON
// Schema and preview; async renders followed by waitForRender (polling, and ended by a webhook event that
// a real receiver verified with verifyWebhook); batches with waitForBatch and their combined PDF and ZIP;
// webhook endpoints and deliveries; API keys; typed render data from `formcast types`; network errors.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  FormcastError,
  verifyWebhook,
  type FormcastClient,
  type Render,
  type WebhookEvent,
} from '../../packages/client/src/index.js';
import { corpusDir } from '../helpers/corpus.js';
import { DATABASES, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const corpus = corpusDir();
const pdf = (name: string) => new Uint8Array(readFileSync(path.join(corpus!, 'pdfs', name)));
const isPdf = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(0, 5)) === '%PDF-';

/** What `formcast types` writes for pdfjs-required-fields.pdf (an interface: no index signature). */
interface RequiredFieldsData {
  Text1?: string;
  Text2?: string;
  'Check Box3'?: boolean;
}

/** A webhook receiver on loopback that verifies each delivery with the SDK and hands out its events. */
async function startSdkReceiver() {
  const events: WebhookEvent[] = [];
  const rejected: string[] = [];
  const waiters: { match: (e: WebhookEvent) => boolean; resolve: (e: WebhookEvent) => void }[] = [];
  const state = { secret: '' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = verifyWebhook(Buffer.concat(chunks), req.headers, state.secret);
        events.push(event);
        for (const w of waiters.filter((x) => x.match(event))) w.resolve(event);
        res.writeHead(200).end('ok');
      } catch (err) {
        rejected.push((err as FormcastError).code);
        res.writeHead(400).end('bad signature');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    events,
    rejected,
    /** a promise of the first event (already received or to come) that matches */
    next(match: (e: WebhookEvent) => boolean): Promise<WebhookEvent> {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const db of DATABASES)
  describe.skipIf(!corpus || !db.enabled)(
    `@formcast/client, every operation [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 120_000 },
    () => {
      let s: TestServer;
      let client: FormcastClient;
      let templateId: string;
      let receiver: Awaited<ReturnType<typeof startSdkReceiver>>;

      beforeAll(async () => {
        s = await startServer(db.name, {
          env: { JOB_POLL_MS: '100', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50' },
        });
        client = createClient({ baseUrl: s.url, apiKey: s.b.key });
        receiver = await startSdkReceiver();
        templateId = (await client.templates.upload(pdf('pdfjs-required-fields.pdf'), { fileName: 'req.pdf' })).id;
      });
      afterAll(async () => {
        await receiver?.close();
        await s?.close();
      });

      it('reads the template file, its JSON Schema, and previews it with typed data', async () => {
        const file = await client.templates.file(templateId);
        expect(isPdf(file)).toBe(true);
        const json = await client.templates.jsonSchema(templateId);
        expect(json).toMatchObject({ templateId, version: 1 });
        expect(Object.keys(json.schema.properties as object)).toEqual(expect.arrayContaining(['Text1', 'Text2']));
        const data: RequiredFieldsData = { Text1: 'preview' };
        const preview = await client.templates.preview<RequiredFieldsData>(templateId, { data });
        expect(isPdf(preview)).toBe(true);
        const missing = await client.templates.file('tpl_missing').catch((e) => e);
        expect(missing).toBeInstanceOf(FormcastError);
        expect(missing).toMatchObject({ status: 404, code: 'TEMPLATE_NOT_FOUND' });
      });

      it('takes the interface `formcast types` writes as the typed data of renders.create', async () => {
        const data: RequiredFieldsData = { Text1: 'typed', 'Check Box3': true };
        const render: Render = await client.renders.create<RequiredFieldsData>({ templateId, data });
        expect(render.status).toBe('completed');
        // @ts-expect-error a key the interface does not have is a compile error
        const bad = client.renders.create<RequiredFieldsData>({ templateId, data: { Nope: 'x' } });
        await expect(bad).resolves.toBeTruthy(); // the server accepts unknown keys (warning), types do not
      });

      it('follows an async render with waitForRender, polling with backoff', async () => {
        const accepted = await client.renders.create({
          templateId,
          data: { Text1: 'async' },
          options: { async: true },
        });
        expect(accepted.status).toBe('pending');
        expect(accepted.downloadUrl).toBeNull();
        const done = await client.renders.waitForRender(accepted, { intervalMs: 20, maxIntervalMs: 200 });
        expect(done.status).toBe('completed');
        expect(isPdf(await client.renders.download(done))).toBe(true);
      });

      it('tells which render made a PDF with renders.verify: the file itself, a changed copy, another PDF', async () => {
        const made = await client.renders.create({ templateId, data: { Text1: 'provenance' } });
        const bytes = await client.renders.download(made);
        const same = await client.renders.verify(bytes);
        expect(same.result).toBe('verified');
        expect(same.render?.id).toBe(made.renderId);
        // a revision appended after our file, as a reader that saves incrementally would
        const appended = new Uint8Array([...bytes, ...new TextEncoder().encode('% a later revision\n')]);
        expect((await client.renders.verify(new Blob([appended]))).result).toBe('modified');
        expect((await client.renders.verify(pdf('irs-fw9-2018.pdf'))).result).toBe('unknown');
      });

      it('ends waitForRender on the render.completed event a receiver verified with verifyWebhook', async () => {
        const endpoint = await client.webhookEndpoints.create({ url: receiver.url, events: ['render.completed'] });
        receiver.state.secret = endpoint.secret;
        try {
          const accepted = await client.renders.create({
            templateId,
            data: { Text1: 'hook' },
            options: { async: true },
          });
          const event = receiver.next((e) => e.type === 'render.completed' && e.data.id === accepted.renderId);
          // polling alone would wait a minute between reads: the event ends the wait
          const done = await client.renders.waitForRender(accepted.renderId, { event, maxIntervalMs: 60_000 });
          expect(done).toMatchObject({ id: accepted.renderId, status: 'completed' });
          expect(done.downloadUrl).toBeTruthy();
          expect((await event).type).toBe('render.completed');
          expect(receiver.rejected).toEqual([]);
        } finally {
          await client.webhookEndpoints.delete(endpoint.id);
        }
      });

      it('waits for a batch and downloads its combined PDF and its ZIP', async () => {
        const batch = await client.batches.create<RequiredFieldsData>({
          items: [
            { templateId, data: { Text1: 'one' } },
            { templateId, data: { Text1: 'two' } },
          ],
          combine: true,
        });
        expect(batch.status).toBe('pending');
        const done = await client.batches.waitForBatch(batch, { intervalMs: 20, maxIntervalMs: 200 });
        expect(done.status).toBe('completed');
        expect(done.progress).toMatchObject({ total: 2, completed: 2, failed: 0 });
        expect(done.items.map((i) => i.status)).toEqual(['completed', 'completed']);
        const combined = await client.batches.downloadCombined(done);
        expect(isPdf(combined)).toBe(true);
        const zip = unzipSync(await client.batches.downloadZip(batch.id));
        expect(Object.keys(zip)).toHaveLength(2);
        for (const bytes of Object.values(zip)) expect(isPdf(bytes)).toBe(true);
      });

      it('manages webhook endpoints and their deliveries, and sends a test event the receiver verifies', async () => {
        const endpoint = await client.webhookEndpoints.create({ url: receiver.url, description: 'sdk' });
        receiver.state.secret = endpoint.secret;
        expect(endpoint.secret).toMatch(/^whsec_/);
        expect((await client.webhookEndpoints.list()).data.map((e) => e.id)).toContain(endpoint.id);
        expect(await client.webhookEndpoints.get(endpoint.id)).toMatchObject({ id: endpoint.id, description: 'sdk' });
        const changed = await client.webhookEndpoints.update(endpoint.id, { description: 'sdk, changed' });
        expect(changed.description).toBe('sdk, changed');

        const delivery = await client.webhookEndpoints.sendTest(endpoint.id);
        const test = await receiver.next((e) => e.type === 'webhook.test' && e.id === delivery.eventId);
        expect(test.data).toMatchObject({ endpointId: endpoint.id });
        // the receiver answers before the sender records the attempt: retry once it is recorded (else 409)
        const withPayload = await until(async () => {
          const d = await client.webhookDeliveries.get(delivery.id);
          return d.status === 'pending' ? undefined : d;
        }, 'the test delivery to be recorded');
        expect(withPayload.status).toBe('succeeded');
        expect(withPayload.payload).toMatchObject({ id: delivery.eventId, type: 'webhook.test' });
        const listed = await client.webhookEndpoints.deliveries(endpoint.id);
        expect(listed.data.map((d) => d.id)).toContain(delivery.id);
        const retried = await client.webhookDeliveries.retry(delivery.id);
        expect(retried.id).toBe(delivery.id);

        // a rotated secret: the receiver holding only the new one still verifies
        const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
        receiver.state.secret = rotated.secret;
        const again = await client.webhookEndpoints.sendTest(endpoint.id);
        await receiver.next((e) => e.id === again.eventId);
        const log = await client.webhookEndpoints.log(endpoint.id);
        expect(log.data.map((l) => l.type)).toEqual(expect.arrayContaining(['created', 'secret.rotated']));
        await client.webhookEndpoints.delete(endpoint.id);
        expect(await client.webhookEndpoints.get(endpoint.id).catch((e) => e.code)).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
      });

      it('creates, lists and revokes API keys', async () => {
        const created = await client.apiKeys.create('sdk key');
        expect(created.key).toMatch(/^fc_/);
        expect((await client.apiKeys.list()).map((k) => k.id)).toContain(created.id);
        const other = createClient({ baseUrl: s.url, apiKey: created.key });
        expect((await other.usage.get()).renders.used).toBeGreaterThanOrEqual(0);
        await client.apiKeys.revoke(created.id);
        expect(await other.usage.get().catch((e) => e.code)).toBe('UNAUTHORIZED');
      });

      it("reads and sets the account's render defaults", async () => {
        const before = await client.account.getSettings();
        expect(before.effective.locale).toBe(before.locale ?? 'fr-FR');
        const set = await client.account.updateSettings({ locale: 'en-GB', timezone: 'Asia/Tokyo' });
        expect(set).toEqual({
          locale: 'en-GB',
          timezone: 'Asia/Tokyo',
          effective: { locale: 'en-GB', timezone: 'Asia/Tokyo' },
        });
        expect(await client.account.updateSettings({ locale: 'xx-!!' }).catch((e) => e.details?.field)).toBe('locale');
        const cleared = await client.account.updateSettings({ locale: null, timezone: null });
        expect(cleared).toEqual({
          locale: null,
          timezone: null,
          effective: { locale: 'fr-FR', timezone: 'Europe/Paris' },
        });
      });
    },
  );

describe('@formcast/client without a server', () => {
  it('turns a refused connection into FormcastError NETWORK_ERROR, after its retries', async () => {
    // a port that was listening and is now closed: nothing answers there
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    let attempts = 0;
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'fc_live_x',
      fetch: (request) => {
        attempts++;
        return fetch(request);
      },
      retry: { sleep: async () => {} },
    });
    const err = await client.templates.list().catch((e) => e);
    expect(err).toBeInstanceOf(FormcastError);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.cause).toBeInstanceOf(TypeError);
    expect(attempts).toBe(3); // a GET is safe to resend
  });

  it('refuses a webhook whose signature or secret does not match', async () => {
    const { Webhook } = await import('standardwebhooks');
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: new Date().toISOString(), data: {} });
    const now = new Date();
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', now, body),
    };
    expect(verifyWebhook(body, new Headers(headers), secret).type).toBe('webhook.test');
    const other = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
    expect(verifyWebhook(body, headers, [other, secret]).id).toBe('evt_1');
    const wrong = (() => {
      try {
        verifyWebhook(`${body} `, headers, secret);
      } catch (e) {
        return e;
      }
    })();
    expect(wrong).toMatchObject({ code: 'INVALID_WEBHOOK_SIGNATURE', status: 400 });
    expect(() => verifyWebhook(body, headers, other)).toThrow(FormcastError);
  });
});
