import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `idempotency, rate limits and metrics [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      beforeAll(async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
        writeFileSync(path.join(dir, 'plans.json'), JSON.stringify({ Free: { requestsPerMinute: 5 } }));
        s = await startServer(db.name, { env: { PLANS_FILE: path.join(dir, 'plans.json') }, planA: 'Pro' });
      });
      afterAll(async () => s?.close());

      it('replays the first answer for the same Idempotency-Key and body, charging the quota once', async () => {
        const t = await s.newTenant('Pro');
        const tpl = (
          await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'), {
            'idempotency-key': 'tpl-1',
          })
        ).json.data;
        const again = await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'), {
          'idempotency-key': 'tpl-1',
        });
        expect(again.status).toBe(201);
        expect(again.json.data.id).toBe(tpl.id);
        expect(again.headers.get('idempotent-replayed')).toBe('true');

        const body = { templateId: tpl.id, data: {} };
        const first = await api(s, t).post('/v1/renders', body, { 'idempotency-key': 'render-1' });
        const second = await api(s, t).post('/v1/renders', body, { 'idempotency-key': 'render-1' });
        expect(second.status).toBe(201);
        expect(second.json.data.renderId).toBe(first.json.data.renderId);
        const usage = (await api(s, t).get('/v1/renders/usage')).json.data;
        expect(usage.renders.used).toBe(1);
        expect(usage.templates.used).toBe(1);
      });

      it('answers IDEMPOTENCY_KEY_REUSED for the same key with another body', async () => {
        const t = await s.newTenant('Pro');
        const tpl = (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'))).json
          .data;
        await api(s, t).post('/v1/renders', { templateId: tpl.id, data: {} }, { 'idempotency-key': 'k' });
        const other = await api(s, t).post(
          '/v1/renders',
          { templateId: tpl.id, data: {}, options: { flatten: false } },
          { 'idempotency-key': 'k' },
        );
        expect(other.status).toBe(422);
        expect(other.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      });

      it('lets a client retry with the same key after an error', async () => {
        const t = await s.newTenant('Pro');
        const bad = await api(s, t).post(
          '/v1/renders',
          { templateId: 'tpl_missing', data: {} },
          { 'idempotency-key': 'retry' },
        );
        expect(bad.status).toBe(404);
        const tpl = (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'))).json
          .data;
        const ok = await api(s, t).post(
          '/v1/renders',
          { templateId: tpl.id, data: {} },
          { 'idempotency-key': 'retry-2' },
        );
        expect(ok.status).toBe(201);
      });

      it('keeps idempotency keys per account', async () => {
        const a = await s.newTenant('Pro');
        const b = await s.newTenant('Pro');
        const ta = (
          await api(s, a).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'), {
            'idempotency-key': 'same',
          })
        ).json.data;
        const tb = (
          await api(s, b).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'), {
            'idempotency-key': 'same',
          })
        ).json.data;
        expect(tb.id).not.toBe(ta.id);
      });

      it('answers RATE_LIMITED with Retry-After past the plan request rate', async () => {
        const t = await s.newTenant('Free'); // 5 requests per minute in this server
        const answers = [];
        for (let i = 0; i < 7; i++) answers.push(await api(s, t).get('/v1/renders/usage'));
        expect(answers.slice(0, 5).every((r) => r.status === 200)).toBe(true);
        const limited = answers[6];
        expect(limited.status).toBe(429);
        expect(limited.json.error.code).toBe('RATE_LIMITED');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(limited.headers.get('ratelimit-remaining')).toBe('0');
        expect((await api(s).get('/health')).status).toBe(200); // health is not counted
      });

      it('exposes Prometheus metrics with request and render counts', async () => {
        const res = await fetch(`${s.url}/metrics`);
        const text = await res.text();
        expect(res.status).toBe(200);
        expect(text).toContain('formcast_http_requests_total');
        expect(text).toMatch(/formcast_renders_total\{status="completed"\} \d+/);
      });
    },
  );
}
