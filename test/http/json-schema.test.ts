import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

type Schema = Record<string, any>;

/** A value a property's schema accepts, read from the schema alone (as a client would). */
function sample(s: Schema): unknown {
  if (s.anyOf) return sample(s.anyOf.find((b: Schema) => b.type !== 'null') ?? s.anyOf[0]);
  if (s.enum) return s.enum.find((v: unknown) => v !== null && v !== false) ?? s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'number') return 42.5;
  if (type === 'boolean') return true;
  if (type === 'string' && s.pattern) return '2024-03-05';
  if (type === 'string') return 'abc'.slice(0, s.maxLength ?? 3);
  return null;
}

const dataFor = (schema: Schema) =>
  Object.fromEntries(Object.entries(schema.properties as Record<string, Schema>).map(([k, p]) => [k, sample(p)]));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `GET /v1/templates/:id/json-schema [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      const upload = (t: Tenant, name: string) => api(s, t).post('/v1/templates', uploadForm(pdf(name), name));
      const render = (t: Tenant, templateId: string, data: unknown) =>
        api(s, t).post('/v1/renders', { templateId, data, options: { strict: true, watermark: false } });

      beforeAll(async () => {
        s = await startServer(db.name);
      });
      afterAll(async () => s?.close());

      it('answers a JSON Schema that Ajv compiles and whose verdicts the render endpoint shares', async () => {
        const id = (await upload(s.b, 'illinois-firearm-bill-of-sale.pdf')).json.data.id;
        const res = await api(s, s.b).get(`/v1/templates/${id}/json-schema`);
        expect(res.status).toBe(200);
        expect(res.json.data).toMatchObject({
          templateId: id,
          templateName: 'illinois-firearm-bill-of-sale.pdf',
          version: 1,
        });
        const schema = res.json.data.schema as Schema;
        expect(schema).toMatchObject({
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          additionalProperties: false,
        });
        // titles come from the fields' labels, as GET /schema reports them
        const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as Schema[];
        const labelled = fields.find((f) => f.label && !f.pdfMeta.readOnly)!;
        expect(schema.properties[labelled.name].title).toBe(labelled.label);

        const check = new Ajv2020({ strict: true }).compile(schema);
        const good = dataFor(schema);
        expect(check(good), JSON.stringify(check.errors)).toBe(true);
        expect((await render(s.b, id, good)).status).toBe(201);

        const text = Object.keys(schema.properties).find((k) => schema.properties[k].type?.includes?.('string'))!;
        for (const bad of [
          { ...good, 'no such field': 'x' },
          { ...good, [text]: 12 },
        ]) {
          expect(check(bad)).toBe(false);
          const r = await render(s.b, id, bad);
          expect(r.status).toBe(422);
          expect(r.json.error.code).toBe('VALIDATION_ERROR');
        }
      });

      it('describes the current version after the file is replaced', async () => {
        const id = (await upload(s.b, 'pdfjs-required-fields.pdf')).json.data.id;
        const before = (await api(s, s.b).get(`/v1/templates/${id}/json-schema`)).json.data;
        expect(before.version).toBe(1);
        expect(before.schema.required.length).toBeGreaterThan(0);
        const replaced = await api(s, s.b).put(
          `/v1/templates/${id}/file`,
          uploadForm(pdf('pdfjs-radio-opt-demo.pdf'), 'pdfjs-radio-opt-demo.pdf'),
        );
        expect(replaced.status).toBe(200);
        const after = (await api(s, s.b).get(`/v1/templates/${id}/json-schema`)).json.data;
        expect(after.version).toBe(2);
        const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as Schema[];
        expect(Object.keys(after.schema.properties).sort()).toEqual(
          fields
            .filter((f) => !f.pdfMeta.readOnly)
            .map((f) => f.name)
            .sort(),
        );
        const radio = fields.find((f) => f.type === 'radio')!;
        expect(after.schema.properties[radio.name].enum).toEqual([...radio.options, ...(radio.required ? [] : [null])]);
      });

      it("answers TEMPLATE_NOT_FOUND for another account's template and an unknown id", async () => {
        const id = (await upload(s.b, 'pdfjs-required-fields.pdf')).json.data.id;
        for (const path of [`/v1/templates/${id}/json-schema`, '/v1/templates/tpl_nope/json-schema']) {
          const res = await api(s, s.a).get(path);
          expect(res.status).toBe(404);
          expect(res.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        }
      });

      it('is in the OpenAPI document, with the new schema field keys', async () => {
        const doc = (await api(s).get('/v1/openapi.json')).json;
        const op = doc.paths['/v1/templates/{id}/json-schema'].get;
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '404']));
        expect(JSON.stringify(doc.paths['/v1/templates/{id}/schema'].get.responses['200'])).toContain(
          'TemplateSchemaResponse',
        );
        const field = doc.components.schemas.SchemaField;
        expect(Object.keys(field.properties)).toEqual(expect.arrayContaining(['label', 'pdfMeta']));
        expect(Object.keys(field.properties.pdfMeta.properties)).toEqual(
          expect.arrayContaining(['rect', 'widgets', 'editable']),
        );
      });

      it('completes a stored analysis that predates labels and rectangles, once, on read', async () => {
        const bytes = pdf('illinois-firearm-bill-of-sale.pdf');
        const id = (await upload(s.b, 'illinois-firearm-bill-of-sale.pdf')).json.data.id;
        const current = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as Schema[];
        expect(current.filter((f) => f.label).length).toBeGreaterThan(10);

        // Make the row look as an older release left it: no label, rect, widgets or editable, under a
        // file version this process has never cached.
        const row = await s.runtime.db
          .selectFrom('templates')
          .select(['analysis', 'blob_key'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const old = JSON.parse(row.analysis);
        for (const f of old.fields) {
          delete f.label;
          delete f.pdfMeta.rect;
          delete f.pdfMeta.widgets;
          delete f.pdfMeta.editable;
        }
        const oldKey = row.blob_key.replace(/\.pdf$/, '-old.pdf');
        await s.runtime.blobs.put(oldKey, bytes);
        await s.runtime.db
          .updateTable('templates')
          .set({ analysis: JSON.stringify(old), blob_key: oldKey })
          .where('id', '=', id)
          .execute();

        const res = await api(s, s.b).get(`/v1/templates/${id}/schema`);
        expect(res.status).toBe(200);
        expect(res.json.data.schema.fields).toEqual(current);
        const stored = await s.runtime.db
          .selectFrom('templates')
          .select('analysis')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const fields = JSON.parse(stored.analysis).fields;
        expect(fields.every((f: Schema) => 'label' in f && Array.isArray(f.pdfMeta.rect))).toBe(true);
      });
    },
  );
}
