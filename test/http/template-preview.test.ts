import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { readWithPdfjs } from '../helpers/pdfjs.js';

// GET /v1/templates/:id/file and POST /v1/templates/:id/preview: what the dashboard draws and previews.

const corpus = corpusDir();
const FORM = 'pdfjs-form-example-multiselect.pdf';
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `template file and preview [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let templateId: string;
      const raw = (t: Tenant, p: string, init: RequestInit = {}) =>
        fetch(s.url + p, { ...init, headers: { authorization: `Bearer ${t.key}`, ...init.headers } });
      const preview = (t: Tenant, id: string, body: unknown) =>
        raw(t, `/v1/templates/${id}/preview`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      beforeAll(async () => {
        s = await startServer(db.name);
        const res = await api(s, s.a).post('/v1/templates', uploadForm(pdf(FORM), FORM));
        expect(res.status).toBe(201);
        templateId = res.json.data.id;
      });
      afterAll(async () => s?.close());

      it('serves the template PDF as uploaded, to its account only', async () => {
        const res = await raw(s.a, `/v1/templates/${templateId}/file`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/pdf');
        expect(res.headers.get('content-disposition')).toMatch(
          /^inline; filename="pdfjs-form-example-multiselect\.pdf"/,
        );
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(Buffer.from(await res.arrayBuffer()).equals(pdf(FORM))).toBe(true);

        const foreign = await raw(s.b, `/v1/templates/${templateId}/file`);
        expect(foreign.status).toBe(404);
        expect(((await foreign.json()) as any).error.code).toBe('TEMPLATE_NOT_FOUND');
      });

      it('previews the filled PDF with a PREVIEW watermark, stored nowhere and not counted', async () => {
        const before = (await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used;
        const res = await preview(s.a, templateId, { data: { firstName: 'Zoë Preview', łódź: 1 } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/pdf');
        expect(res.headers.get('cache-control')).toBe('no-store');
        // warnings as a JSON array, non-ASCII escaped so the header stays ASCII
        const header = res.headers.get('formcast-warnings')!;
        expect(header).toMatch(/^[\x20-\x7e]*$/);
        const warnings = JSON.parse(header) as string[];
        expect(warnings.some((w) => w.includes('"łódź"'))).toBe(true);

        const reading = await readWithPdfjs(new Uint8Array(await res.arrayBuffer()), { text: true });
        expect(reading.pageTexts[0]).toContain('Zoë Preview');
        expect(reading.pageTexts[0]).toContain('PREVIEW');
        expect(reading.fields).toBeNull(); // flattened by default, as a render

        const after = await api(s, s.a).get('/v1/renders/usage');
        expect(after.json.data.renders.used).toBe(before);
        expect((await api(s, s.a).get('/v1/renders')).json.meta.total).toBe(0);
      });

      it('keeps the PREVIEW watermark even when asked for none, and says so', async () => {
        const res = await preview(s.b, (await uploadTo(s.b)).id, {
          data: { lastName: 'Pro' },
          options: { watermark: false, flatten: false },
        });
        expect(res.status).toBe(200);
        expect(JSON.parse(res.headers.get('formcast-warnings')!)).toContain(
          'Previews always carry a PREVIEW watermark',
        );
        const reading = await readWithPdfjs(new Uint8Array(await res.arrayBuffer()), { text: true });
        expect(reading.pageTexts[0]).toContain('PREVIEW');
        expect(reading.fields).not.toBeNull(); // flatten: false kept the fields
      });

      it('answers the same VALIDATION_ERROR as POST /renders for the same data', async () => {
        for (const [data, options] of [
          [{ firstName: 42 }, undefined],
          [{ firstName: 'x'.repeat(41) }, { strict: true }],
          [{ nope: 'x' }, { strict: true }],
        ] as const) {
          const p = await preview(s.a, templateId, { data, options });
          const r = await api(s, s.a).post('/v1/renders', { templateId, data, options });
          expect(p.status).toBe(422);
          expect(r.status).toBe(422);
          expect(await p.json()).toEqual(r.json);
        }
        const bad = await preview(s.a, templateId, { data: {}, options: { flatten: 'yes' } });
        expect(bad.status).toBe(422);
        expect(((await bad.json()) as any).error.details.field).toBe('options.flatten');
        const noData = await preview(s.a, templateId, {});
        expect(noData.status).toBe(422);
        expect(((await noData.json()) as any).error.details.field).toBe('data');
      });

      it("answers 404 for another account's template and for an unknown one", async () => {
        for (const id of [templateId, 'tpl_unknown']) {
          const res = await preview(s.b, id, { data: {} });
          expect(res.status).toBe(404);
          expect(((await res.json()) as any).error.code).toBe('TEMPLATE_NOT_FOUND');
        }
      });

      it('counts previews against the per-key request rate, like any API call', async () => {
        const res = await preview(s.a, templateId, { data: {} });
        expect(Number(res.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
        expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
      });

      async function uploadTo(t: Tenant) {
        const res = await api(s, t).post('/v1/templates', uploadForm(pdf(FORM), FORM));
        return res.json.data as { id: string };
      }
    },
  );
}

describe('the OpenAPI document', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite');
  });
  afterAll(async () => s?.close());

  it('describes the file and preview routes as answering application/pdf', async () => {
    const doc = (await api(s).get('/v1/openapi.json')).json;
    const file = doc.paths['/v1/templates/{id}/file'].get;
    const prev = doc.paths['/v1/templates/{id}/preview'].post;
    expect(Object.keys(file.responses['200'].content)).toEqual(['application/pdf']);
    expect(Object.keys(prev.responses['200'].content)).toEqual(['application/pdf']);
    expect(prev.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/PreviewRequest');
    expect(doc.components.schemas.PreviewRequest.required).toEqual(['data']);
    expect(prev.description).toContain('Formcast-Warnings');
  });
});
