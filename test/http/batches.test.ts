import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../src/plans.js';
import {
  api,
  DATABASES,
  startServer,
  uploadWithTextField,
  uploadForm,
  type Tenant,
  type TestServer,
} from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields } from '../helpers/pdf-tools.js';
import { readWithPdfjs } from '../helpers/pdfjs.js';
import { until } from '../helpers/until.js';
import { fetchStatus } from '../helpers/fetch-status.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
// Pro gets 1,000 renders a month here, so a full batch meets the quota exactly
const plans = { ...DEFAULT_PLANS, Pro: { ...DEFAULT_PLANS.Pro, rendersPerMonth: 1000 } };

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `render batches over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let tpl: string;
      let field: string;

      beforeAll(async () => {
        s = await startServer(db.name, { overrides: { plans }, env: { JOB_POLL_MS: '200' } });
        ({ tpl, field } = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf')));
      });
      afterAll(async () => s?.close());

      const used = async (t: Tenant) => (await api(s, t).get('/v1/renders/usage')).json.data.renders.used as number;
      // a large batch is looked at once a second: its answer lists every item
      const completed = (t: Tenant, id: string, ms?: number, everyMs?: number) =>
        until(
          async () => {
            const r = await api(s, t).get(`/v1/render-batches/${id}`);
            return r.json.data.status === 'completed' ? r.json.data : undefined;
          },
          `batch ${id}`,
          ms,
          everyMs,
        );
      const ownTemplate = async (t: Tenant) =>
        (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'req.pdf'))).json.data
          .id as string;
      const items = (templateId: string, n: number) =>
        Array.from({ length: n }, (_, i) => ({ templateId, data: { [field]: `item ${i}` } }));

      it('refuses a 1,000-item batch whole with 999 renders left, and reserves nothing', async () => {
        const t = await s.newTenant('Pro');
        const own = await ownTemplate(t);
        expect((await api(s, t).post('/v1/renders', { templateId: own, data: {} })).status).toBe(201);
        const res = await api(s, t).post('/v1/renders/batch', { items: items(own, 1000) });
        expect(res.status).toBe(429);
        expect(res.json.error.code).toBe('RENDER_LIMIT_REACHED');
        expect(res.json.error.details).toMatchObject({ used: 1, limit: 1000, requested: 1000 });
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await used(t)).toBe(1);
        expect((await api(s, t).get('/v1/renders')).json.meta.total).toBe(1);
      });

      it('completes a 1,000-item batch with enough quota, with exact usage', { timeout: 600_000 }, async () => {
        const t = await s.newTenant('Pro');
        const own = await ownTemplate(t);
        const res = await api(s, t).post('/v1/renders/batch', { items: items(own, 1000) });
        expect(res.status).toBe(202);
        expect(res.headers.get('location')).toBe(`/v1/render-batches/${res.json.data.id}`);
        expect(res.json.data).toMatchObject({ status: 'pending', progress: { total: 1000 } });
        expect(await used(t)).toBe(1000);
        const done = await completed(t, res.json.data.id, 550_000, 1000);
        expect(done.progress).toEqual({ total: 1000, pending: 0, completed: 1000, failed: 0 });
        expect(done.items.map((i: { index: number }) => i.index)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
        expect(await used(t)).toBe(1000);
        const over = await api(s, t).post('/v1/renders', { templateId: own, data: {} });
        expect(over.json.error.code).toBe('RENDER_LIMIT_REACHED');
        const one = await api(s, t).get(`/v1/renders/${done.items[7].renderId}`);
        expect(one.json.data).toMatchObject({ status: 'completed', batchId: done.id, batchIndex: 7 });
        const ev = await s.runtime.db
          .selectFrom('events')
          .selectAll()
          .where('account_id', '=', t.accountId)
          .where('type', '=', 'render-batch.completed')
          .execute();
        expect(ev.map((e) => JSON.parse(e.data).id)).toEqual([done.id]);
      });

      it('refuses a batch with a bad item, naming it, and reserves nothing', async () => {
        const before = await used(s.b);
        const res = await api(s, s.b).post('/v1/renders/batch', {
          items: [
            { templateId: tpl, data: {} },
            { templateId: tpl, data: { [field]: 42 } },
          ],
        });
        expect(res.status).toBe(422);
        expect(res.json.error.details).toMatchObject({ field: `items[1].data.${field}`, index: '1' });
        const missing = await api(s, s.b).post('/v1/renders/batch', { items: [{ templateId: 'tpl_nope', data: {} }] });
        expect(missing.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        expect(await used(s.b)).toBe(before);
      });

      it('combines items in order with distinct field values per copy, and serves a ZIP of the items', async () => {
        const res = await api(s, s.b).post('/v1/renders/batch', {
          combine: true,
          items: [
            { templateId: tpl, data: { [field]: 'first copy' }, options: { flatten: false } },
            { templateId: tpl, data: { [field]: 'second copy' }, options: { flatten: false } },
            { templateId: tpl, data: { [field]: 'flat copy' } },
            { templateId: tpl, data: { [field]: 'third copy' }, options: { flatten: false } },
          ],
        });
        expect(res.status).toBe(202);
        const done = await completed(s.b, res.json.data.id);
        expect(done.combineError).toBeNull();
        expect(done.combinedDownloadUrl).toEqual(expect.any(String));
        const merged = new Uint8Array(await (await fetch(done.combinedDownloadUrl)).arrayBuffer());
        expect(Buffer.from(merged.subarray(0, 5)).toString()).toBe('%PDF-');

        const reading = await readWithPdfjs(merged);
        const values = Object.entries(reading.fields ?? {})
          .filter(([name]) => name.includes(field))
          .map(([name, entries]) => [name, entries.find((e) => e.value !== undefined)?.value]);
        expect(new Set(values.map(([, v]) => v))).toEqual(new Set(['first copy', 'second copy', 'third copy']));
        expect(new Set(values.map(([n]) => n)).size).toBe(3);
        if (hasTool('pdftk')) {
          const file = path.join(mkdtempSync(path.join(tmpdir(), 'batch-')), 'merged.pdf');
          writeFileSync(file, merged);
          const pdftk = (await pdftkFields(file)).filter((f) => f.name.includes(field) && f.values.length);
          expect(new Set(pdftk.map((f) => f.values[0]))).toEqual(new Set(['first copy', 'second copy', 'third copy']));
        }

        const zipRes = await fetch(done.zipDownloadUrl);
        expect(zipRes.headers.get('content-type')).toBe('application/zip');
        const files = unzipSync(new Uint8Array(await zipRes.arrayBuffer()));
        const names = Object.keys(files);
        expect(names).toHaveLength(4);
        expect(names[0]).toMatch(/^1-req-rnd_/);
        for (const bytes of Object.values(files)) expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
        // the first character of the signature changed (to another character whatever it was)
        const tampered = done.zipDownloadUrl.replace(
          /signature=./,
          (m: string) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'),
        );
        expect(await fetchStatus(tampered)).toBe(403);
      });

      it('documents batches, async renders and the pending status in the OpenAPI document', async () => {
        const doc = (await api(s).get('/v1/openapi.json')).json;
        expect(doc.paths['/v1/renders/batch'].post.responses['202']).toBeDefined();
        expect(doc.paths['/v1/render-batches/{id}'].get.responses['200']).toBeDefined();
        expect(doc.paths['/v1/renders'].post.responses['202']).toBeDefined();
        const status = doc.paths['/v1/renders'].get.parameters.find((p: { name: string }) => p.name === 'status');
        expect(JSON.stringify(status.schema)).toContain('pending');
      });

      it("answers BATCH_NOT_FOUND for another account's batch", async () => {
        const res = await api(s, s.b).post('/v1/renders/batch', { items: [{ templateId: tpl, data: {} }] });
        expect((await api(s, s.a).get(`/v1/render-batches/${res.json.data.id}`)).status).toBe(404);
        expect((await api(s, s.b).get('/v1/render-batches/bat_000000000000000000000000')).json.error.code).toBe(
          'BATCH_NOT_FOUND',
        );
      });
    },
  );
}
