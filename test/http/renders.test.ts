import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, TestClock, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { sweepOnce } from '../../src/modules/housekeeping/sweeper.js';
import { fetchStatus } from '../helpers/fetch-status.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

async function schemaOf(s: TestServer, t: Tenant, id: string) {
  return (await api(s, t).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as {
    name: string;
    type: string;
    options?: string[];
    pdfMeta: { originalName: string; readOnly?: boolean };
  }[];
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `renders over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let clock: TestClock;
      let tplB: string; // pdfjs-required-fields on tenant b (Pro)
      let tplA: string; // same form on tenant a (Free)
      let textField: string;

      beforeAll(async () => {
        clock = new TestClock();
        s = await startServer(db.name, { overrides: { clock } });
        tplB = (await api(s, s.b).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'required.pdf')))
          .json.data.id;
        tplA = (await api(s, s.a).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'required.pdf')))
          .json.data.id;
        textField = (await schemaOf(s, s.b, tplB)).find((f) => f.type === 'text' && !f.pdfMeta.readOnly)!.name;
      });
      afterAll(async () => s?.close());

      const render = (t: Tenant, body: unknown) => api(s, t).post('/v1/renders', body);

      it('renders and returns the render of the reference with a working download link', async () => {
        const res = await render(s.b, { templateId: tplB, data: { [textField]: 'Zoë Łódź' } });
        expect(res.status).toBe(201);
        const r = res.json.data;
        expect(r).toMatchObject({ status: 'completed', expiresIn: 900, warnings: expect.any(Array) });
        expect(r.renderId).toMatch(/^rnd_/);
        expect(r.fileSize).toBeGreaterThan(0);
        expect(Number.isInteger(r.durationMs)).toBe(true);
        const dl = await fetch(r.downloadUrl);
        expect(dl.status).toBe(200);
        expect(dl.headers.get('content-type')).toBe('application/pdf');
        expect(dl.headers.get('content-disposition')).toMatch(/attachment; filename="required-rnd_/);
        const bytes = new Uint8Array(await dl.arrayBuffer());
        expect(bytes.byteLength).toBe(r.fileSize);
        expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
      });

      it('accepts the original PDF name as a key', async () => {
        const f = (await schemaOf(s, s.b, tplB)).find((x) => x.name === textField)!;
        const res = await render(s.b, { templateId: tplB, data: { [f.pdfMeta.originalName]: 'by original name' } });
        expect(res.status).toBe(201);
      });

      it('answers VALIDATION_ERROR with details for a value of the wrong type', async () => {
        const res = await render(s.b, { templateId: tplB, data: { [textField]: 42 } });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('VALIDATION_ERROR');
        expect(res.json.error.details).toMatchObject({
          field: textField,
          expected: expect.any(String),
          received: expect.any(String),
        });
      });

      it('ignores unknown fields with a warning, and refuses them in strict mode', async () => {
        const lax = await render(s.b, { templateId: tplB, data: { nope: 'x' } });
        expect(lax.status).toBe(201);
        expect(lax.json.data.warnings.join(' ')).toContain('nope');
        const strict = await render(s.b, { templateId: tplB, data: { nope: 'x' }, options: { strict: true } });
        expect(strict.status).toBe(422);
        expect(strict.json.error.details.field).toBe('nope');
      });

      it('answers VALIDATION_ERROR for bad options and a missing data object', async () => {
        expect((await render(s.b, { templateId: tplB, data: {}, options: { flatten: 'yes' } })).status).toBe(422);
        expect(
          (await render(s.b, { templateId: tplB, data: {}, options: { colour: 1 } })).json.error.details.field,
        ).toBe('options.colour');
        expect((await render(s.b, { templateId: tplB })).json.error.details.field).toBe('data');
        expect((await render(s.b, { templateId: tplB, data: [] })).status).toBe(422);
        expect(
          (await render(s.b, { templateId: tplB, data: {}, options: { timezone: 'Mars/Base' } })).json.error.details
            .field,
        ).toBe('options.timezone');
      });

      it("answers TEMPLATE_NOT_FOUND for an unknown template and for another account's", async () => {
        for (const id of ['tpl_missing', tplA]) {
          const res = await render(s.b, { templateId: id, data: {} });
          expect(res.status).toBe(404);
          expect(res.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        }
      });

      it('forces the watermark on the Free plan and says so in warnings', async () => {
        const res = await render(s.a, { templateId: tplA, data: {}, options: { watermark: false } });
        expect(res.status).toBe(201);
        expect(res.json.data.warnings.join(' ')).toMatch(/watermark/i);
      });

      it('keeps a failed render for a corrupted template, lists it, and does not count it', async () => {
        const t = await s.newTenant('Pro');
        const id = (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'))).json
          .data.id;
        const row = await s.runtime.db
          .selectFrom('templates')
          .select('blob_key')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        await s.runtime.blobs.put(row.blob_key, new TextEncoder().encode('%PDF-1.7\ngarbage'));
        const res = await render(t, { templateId: id, data: {} });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('RENDER_FAILED');
        const list = await api(s, t).get('/v1/renders?status=failed');
        expect(list.json.data).toHaveLength(1);
        expect(list.json.data[0]).toMatchObject({ status: 'failed', downloadUrl: null, templateId: id });
        const detail = await api(s, t).get(`/v1/renders/${list.json.data[0].id}`);
        expect(detail.json.data.error.code).toBe('RENDER_FAILED');
        expect((await api(s, t).get('/v1/renders/usage')).json.data.renders.used).toBe(0);
      });

      it('lists renders newest first with filters and counts them in usage', async () => {
        const t = await s.newTenant('Pro');
        const id = (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'))).json
          .data.id;
        const made: string[] = [];
        for (let i = 0; i < 3; i++) made.push((await render(t, { templateId: id, data: {} })).json.data.renderId);
        const list = await api(s, t).get(`/v1/renders?templateId=${id}&status=completed&limit=2`);
        expect(list.json.meta).toEqual({ page: 1, limit: 2, total: 3, hasMore: true, nextCursor: made[1] });
        expect(list.json.data.map((r: { id: string }) => r.id)).toEqual([made[2], made[1]]);
        expect(list.json.data[0]).toMatchObject({ templateId: id, templateName: 'r.pdf', status: 'completed' });
        expect((await api(s, t).get('/v1/renders/usage')).json.data.renders.used).toBe(3);
        expect((await api(s, t).get('/v1/renders?status=bogus')).status).toBe(422);
        // pending is a status since async renders (issue 11): listed and filterable
        expect((await api(s, t).get('/v1/renders?status=pending')).status).toBe(200);
      });

      it('gets a render with a fresh link, and deletes it with its file', async () => {
        const made = (await render(s.b, { templateId: tplB, data: {} })).json.data;
        const detail = await api(s, s.b).get(`/v1/renders/${made.renderId}`);
        expect(detail.status).toBe(200);
        expect(detail.json.data).toMatchObject({
          id: made.renderId,
          templateId: tplB,
          templateVersion: 1,
          expiresIn: 900,
          warnings: made.warnings,
        });
        expect(detail.json.data.downloadUrl).toContain(made.renderId);
        expect((await api(s, s.b).delete(`/v1/renders/${made.renderId}`)).status).toBe(204);
        expect((await api(s, s.b).get(`/v1/renders/${made.renderId}`)).json.error.code).toBe('RENDER_NOT_FOUND');
        const dl = await fetch(made.downloadUrl);
        if (s.nativeDownloads) {
          // S3 answers for its own pre-signed URLs: the object is gone (404, or 403 without ListBucket)
          expect([403, 404]).toContain(dl.status);
        } else {
          expect(dl.status).toBe(403);
          expect(((await dl.json()) as any).error.code).toBe('DOWNLOAD_FORBIDDEN');
        }
      });

      it('answers 403 for a tampered or expired download link', async () => {
        const made = (await render(s.b, { templateId: tplB, data: {} })).json.data;
        const tampered = made.downloadUrl.replace(
          /signature=./i,
          (m: string) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'),
        );
        expect(await fetchStatus(tampered)).toBe(403);
        const otherId = made.downloadUrl.replace(made.renderId, 'rnd_000000000000000000000000');
        expect(await fetchStatus(otherId)).toBe(403);
        if (!s.nativeDownloads) {
          // S3 signs with the real clock; its expiry is covered by the BlobStore contract suite
          clock.advance(901_000);
          const expired = await fetch(made.downloadUrl);
          expect(expired.status).toBe(403);
          expect(((await expired.json()) as any).error.message).toMatch(/expired/);
        }
        const fresh = await api(s, s.b).get(`/v1/renders/${made.renderId}`);
        expect(await fetchStatus(fresh.json.data.downloadUrl)).toBe(200);
      });

      it('keeps renders of a deleted template downloadable', async () => {
        const id = (await api(s, s.b).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'gone.pdf')))
          .json.data.id;
        const made = (await render(s.b, { templateId: id, data: {} })).json.data;
        expect((await api(s, s.b).delete(`/v1/templates/${id}`)).status).toBe(204);
        expect(await fetchStatus(made.downloadUrl)).toBe(200);
        expect((await api(s, s.b).get(`/v1/renders/${made.renderId}`)).json.data.templateName).toBe('gone.pdf');
      });

      it("answers RENDER_NOT_FOUND for another account's render", async () => {
        const made = (await render(s.b, { templateId: tplB, data: {} })).json.data;
        expect((await api(s, s.a).get(`/v1/renders/${made.renderId}`)).json.error.code).toBe('RENDER_NOT_FOUND');
        expect((await api(s, s.a).delete(`/v1/renders/${made.renderId}`)).status).toBe(404);
        expect((await api(s, s.a).get('/v1/renders')).json.data.map((r: { id: string }) => r.id)).not.toContain(
          made.renderId,
        );
        expect((await api(s, s.b).get(`/v1/renders/${made.renderId}`)).status).toBe(200);
      });

      it('removes renders past the plan retention, and only those', async () => {
        const t = await s.newTenant('Free'); // 7 days
        const id = (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'))).json
          .data.id;
        const old = (await render(t, { templateId: id, data: {} })).json.data;
        clock.advance(6 * 86_400_000);
        const young = (await render(t, { templateId: id, data: {} })).json.data;
        clock.advance(1 * 86_400_000 + 1000);
        const swept = await sweepOnce(s.runtime);
        expect(swept?.expired).toBeGreaterThanOrEqual(1);
        expect((await api(s, t).get(`/v1/renders/${old.renderId}`)).status).toBe(404);
        expect((await api(s, t).get(`/v1/renders/${young.renderId}`)).status).toBe(200);
        const oldRow = await s.runtime.db
          .selectFrom('renders')
          .select(['blob_key', 'deleted_at'])
          .where('id', '=', old.renderId)
          .executeTakeFirstOrThrow();
        expect(oldRow.deleted_at).not.toBeNull();
        expect(await s.runtime.blobs.exists(`renders/${t.accountId}/${old.renderId}.pdf`)).toBe(false);
        expect(await s.runtime.blobs.exists(`renders/${t.accountId}/${young.renderId}.pdf`)).toBe(true);
      });
    },
  );

  describe.skipIf(!db.enabled || !corpus)(`render quota [${db.label}]`, () => {
    let s: TestServer;
    beforeAll(async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
      writeFileSync(path.join(dir, 'plans.json'), JSON.stringify({ Business: { rendersPerMonth: 3 } }));
      s = await startServer(db.name, { env: { PLANS_FILE: path.join(dir, 'plans.json') } });
    });
    afterAll(async () => s?.close());

    it('gives exactly 3 successes to 50 parallel renders with 3 left, then RENDER_LIMIT_REACHED with Retry-After', async () => {
      const t = await s.newTenant('Business');
      const id = (await api(s, t).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'))).json
        .data.id;
      const results = await Promise.all(
        Array.from({ length: 50 }, () => api(s, t).post('/v1/renders', { templateId: id, data: {} })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      const refused = results.filter((r) => r.status === 429);
      expect(refused).toHaveLength(47);
      expect(refused[0].json.error.code).toBe('RENDER_LIMIT_REACHED');
      expect(refused[0].json.error.message).toContain('3/3');
      expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await api(s, t).get('/v1/renders/usage')).json.data.renders).toEqual({ used: 3, limit: 3 });
      // A synchronous render's fill and output file start beside its reservation: the refused ones'
      // were discarded, so the account holds the three PDFs and no temp file.
      const stored = [];
      for await (const key of s.runtime.blobs.list(`renders/${t.accountId}/`)) stored.push(key);
      expect(stored).toHaveLength(3);
      if (!s.config.s3) {
        const folder = path.join(s.config.dataDir, 'files', 'renders', t.accountId);
        expect(readdirSync(folder).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      }
      // at its limit the account's next render starts no fill at all, and is refused the same way
      const next = await api(s, t).post('/v1/renders', { templateId: id, data: {} });
      expect(next.status).toBe(429);
    });
  });
}
