// Real deliveries of every event type a test can cause, received on loopback, each validated with Ajv
// against the payload schema the OpenAPI document declares for its type under `webhooks`: the document
// says what the service sends, on every storage backend.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { componentValidator } from '../helpers/openapi-ajv.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const corpus = corpusDir();
const FORM = 'pdfjs-required-fields.pdf';

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `webhook payloads match the OpenAPI webhooks [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 120_000 },
    () => {
      let s: TestServer;
      let receiver: Receiver;

      beforeAll(async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
        // a quota of 4 renders: the 4th crosses 80 % and 100 % at once
        writeFileSync(path.join(dir, 'plans.json'), JSON.stringify({ Business: { rendersPerMonth: 4 } }));
        s = await startServer(db.name, {
          env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', PLANS_FILE: path.join(dir, 'plans.json') },
        });
        receiver = await startReceiver();
      });
      afterAll(async () => {
        await receiver?.close();
        await s?.close();
      });

      it('sends template, render, batch, usage and test events whose bodies validate against their schemas', async () => {
        const t = await s.newTenant('Business');
        const endpoint = await api(s, t).post('/v1/webhook-endpoints', { url: receiver.url, events: ['*'] });
        expect(endpoint.status).toBe(201);
        receiver.secrets = [endpoint.json.data.secret];

        const file = readFileSync(path.join(corpus!, 'pdfs', FORM));
        const tpl = (await api(s, t).post('/v1/templates', uploadForm(file, FORM))).json.data;
        expect((await api(s, t).patch(`/v1/templates/${tpl.id}`, { name: 'Renamed' })).status).toBe(200);
        expect((await api(s, t).post('/v1/renders', { templateId: tpl.id, data: {} })).status).toBe(201);
        const batch = await api(s, t).post('/v1/renders/batch', {
          items: [
            { templateId: tpl.id, data: {} },
            { templateId: tpl.id, data: {} },
          ],
        });
        expect(batch.status).toBe(202);
        await receiver.waitFor('the batch event', () =>
          receiver.received.some((r) => r.json?.type === 'render-batch.completed'),
        );
        expect((await api(s, t).post('/v1/renders', { templateId: tpl.id, data: {} })).status).toBe(201);
        expect((await api(s, t).post(`/v1/webhook-endpoints/${endpoint.json.data.id}/test`, {})).status).toBe(202);
        expect((await api(s, t).delete(`/v1/templates/${tpl.id}`)).status).toBe(204);

        const expected = [
          'render-batch.completed',
          'render.completed',
          'template.created',
          'template.deleted',
          'template.updated',
          'usage.renders.threshold',
          'webhook.test',
        ];
        const types = () => [...new Set(receiver.received.map((r) => r.json?.type as string))].sort();
        // 4 renders, 2 thresholds, one each of the batch, the 3 template events and the test
        await receiver.waitFor('every delivery', () => receiver.received.length >= 4 + 2 + 5);
        expect(types()).toEqual(expected);
        expect(receiver.received).toHaveLength(11);

        const doc = (await api(s).get('/v1/openapi.json')).json;
        const validator = componentValidator(doc);
        for (const r of receiver.received) {
          expect(r.verifiedBy, r.json.type).toEqual([0]);
          expect(r.id, r.json.type).toBe(r.json.id);
          const ref: string = doc.webhooks[r.json.type].post.requestBody.content['application/json'].schema.$ref;
          const validate = validator(ref.replace('#/components/schemas/', ''));
          expect(validate(r.json), `${r.json.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
        }
        // the schemas are not vacuous: a body of one type fails another type's schema
        const completed = receiver.received.find((r) => r.json.type === 'render.completed')!.json;
        expect(validator('TemplateCreatedEvent')(completed)).toBe(false);
        expect(validator('RenderCompletedEvent')({ ...completed, data: { ...completed.data, status: 42 } })).toBe(
          false,
        );
      });
    },
  );
}
