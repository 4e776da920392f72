// Field detection through the API: POST /v1/templates with detectFields=true turns a flat PDF into a
// template with real fields (rendered by their keys), a plain upload of it still answers INVALID_PDF,
// a scan answers INVALID_PDF naming its pages, and POST /v1/templates/:id/detect-fields adds what a
// form misses as the next version, keeping the keys it had. On every storage backend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { halfForm, printedForm, scannedPage } from '../helpers/flat-forms.js';

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `field detection over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 120_000 },
    () => {
      let s: TestServer;
      beforeAll(async () => {
        s = await startServer(db.name);
      });
      afterAll(async () => s?.close());

      it('detectFields=true makes a template of a flat PDF, with the detections listed and usable keys', async () => {
        const bytes = await printedForm();
        const res = await api(s, s.b).post(
          '/v1/templates',
          uploadForm(bytes, 'flat.pdf', { detectFields: 'true', name: 'Flat' }),
        );
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const tpl = res.json.data;
        const detections = tpl.detections as {
          key: string;
          type: string;
          page: number;
          rect: number[];
          label: string | null;
          confidence: number;
        }[];
        expect(detections.map((d) => d.key).sort()).toEqual(
          [
            'adresse',
            'code_postal',
            'date_de_naissance',
            'j_accepte_les_conditions',
            'nom',
            'signature',
            'ville',
          ].sort(),
        );
        expect(tpl.detectionWarnings).toEqual([]);
        expect(tpl.fieldCount).toBe(detections.length);
        for (const d of detections) {
          expect(d.page).toBe(1);
          expect(d.rect).toHaveLength(4);
          expect(d.confidence).toBeGreaterThan(0);
        }
        expect(detections.find((d) => d.key === 'code_postal')).toMatchObject({ type: 'comb', cells: 5 });

        // the schema has the fields under the detected keys, with the caption as label
        const schema = (await api(s, s.b).get(`/v1/templates/${tpl.id}/schema`)).json.data.schema;
        const fields = Object.fromEntries(schema.fields.map((f: any) => [f.name, f]));
        expect(Object.keys(fields).sort()).toEqual(detections.map((d) => d.key).sort());
        expect(fields.code_postal.maxLength).toBe(5);
        expect(fields.j_accepte_les_conditions.type).toBe('checkbox');

        // and a render fills them by those keys
        const render = await api(s, s.b).post('/v1/renders', {
          templateId: tpl.id,
          data: { nom: 'Dupont', ville: 'Lyon', code_postal: '69001', j_accepte_les_conditions: true },
          options: { flatten: false, watermark: false },
        });
        expect(render.status, JSON.stringify(render.json)).toBe(201);
        expect(render.json.data.warnings ?? []).toEqual([]);
      });

      it('a plain upload of the same flat PDF still answers INVALID_PDF', async () => {
        const res = await api(s, s.b).post('/v1/templates', uploadForm(await printedForm(), 'flat.pdf'));
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('INVALID_PDF');
        const no = await api(s, s.b).post(
          '/v1/templates',
          uploadForm(await printedForm(), 'flat.pdf', { detectFields: 'false' }),
        );
        expect(no.json.error.code).toBe('INVALID_PDF');
      });

      it('refuses a detectFields value other than true or false', async () => {
        const res = await api(s, s.b).post(
          '/v1/templates',
          uploadForm(await printedForm(), 'flat.pdf', { detectFields: 'yes' }),
        );
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('VALIDATION_ERROR');
        expect(res.json.error.details.field).toBe('detectFields');
      });

      it('a scanned page answers INVALID_PDF naming the page, and no template is made', async () => {
        const before = (await api(s, s.b).get('/v1/templates?limit=100')).json.data.length;
        const res = await api(s, s.b).post(
          '/v1/templates',
          uploadForm(await scannedPage(), 'scan.pdf', { detectFields: 'true' }),
        );
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('INVALID_PDF');
        expect(res.json.error.details.pages).toEqual([1]);
        expect(res.json.error.message).toMatch(/page 1 is a scanned image/);
        expect((await api(s, s.b).get('/v1/templates?limit=100')).json.data.length).toBe(before);
      });

      it('detect-fields adds what a form misses as the next version, keeping its keys, only for its owner', async () => {
        const up = await api(s, s.b).post('/v1/templates', uploadForm(await halfForm(), 'half.pdf'));
        expect(up.status).toBe(201);
        const id = up.json.data.id as string;
        const own = await api(s, s.b).patch(`/v1/templates/${id}/fields`, { fields: { name: { name: 'full_name' } } });
        expect(own.status, JSON.stringify(own.json)).toBe(200);

        expect((await api(s, s.a).post(`/v1/templates/${id}/detect-fields`)).status).toBe(404);

        const res = await api(s, s.b).post(`/v1/templates/${id}/detect-fields`);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        expect(res.json.data.detections.map((d: any) => [d.key, d.type, d.label])).toEqual([
          ['employer', 'text', 'Employer'],
        ]);
        expect(res.json.data.template.version).toBe(3);
        const keys = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields.map(
          (f: any) => f.name,
        );
        expect(keys.sort()).toEqual(['employer', 'full_name']);

        // once nothing is missing, no new version
        const again = await api(s, s.b).post(`/v1/templates/${id}/detect-fields`);
        expect(again.status).toBe(200);
        expect(again.json.data.detections).toEqual([]);
        expect(again.json.data.template.version).toBe(3);
      });
    },
  );
}
