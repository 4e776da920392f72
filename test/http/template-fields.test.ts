// PATCH /v1/templates/:id/fields end to end, on every storage backend: the team's keys, descriptions,
// defaults, constants and rules; the schema, JSON Schema, renders, previews, batches and async renders
// that follow them; every problem of a bad request at once with nothing saved; versions and events.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { pdftotext } from '../helpers/pdf-tools.js';
import { until } from '../helpers/until.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const FORM = 'pdfbox-acroforms-basic-fields.pdf';
type Field = Record<string, any>;

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `PATCH /v1/templates/:id/fields [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let dir: string;
      const upload = async (t: Tenant, name = FORM) =>
        (await api(s, t).post('/v1/templates', uploadForm(pdf(name), name))).json.data.id as string;
      const patch = (t: Tenant, id: string, body: unknown) => api(s, t).patch(`/v1/templates/${id}/fields`, body);
      const render = (t: Tenant, templateId: string, data: unknown, options: Record<string, unknown> = {}) =>
        api(s, t).post('/v1/renders', { templateId, data, options: { watermark: false, ...options } });
      /** the text of a PDF answer or download, as pdftotext reads it */
      let n = 0;
      const textOf = async (bytes: ArrayBuffer | Buffer) => {
        const file = path.join(dir, `out-${++n}.pdf`);
        writeFileSync(file, Buffer.from(bytes as ArrayBuffer));
        return pdftotext(file);
      };
      const downloaded = async (url: string) => textOf(await (await fetch(url)).arrayBuffer());
      const schemaOf = async (t: Tenant, id: string) => (await api(s, t).get(`/v1/templates/${id}/schema`)).json.data;
      const byPdfName = (fields: Field[], name: string) => fields.find((f) => f.pdfMeta.originalName === name)!;

      /** The model most tests share: renamed, described, defaulted, constant, hidden and required fields. */
      const MODEL = {
        fields: {
          TextField: { name: 'customer', description: 'Who buys' },
          RichTextField: { default: 'Default text here' },
          'ComboBox-DefaultValue': { constant: 'Opt02' },
          LongRichTextField: { hidden: true },
          Checkbox: { required: true },
        },
      };

      beforeAll(async () => {
        s = await startServer(db.name);
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-fields-'));
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('answers the updated schema, raises the version and shows the settings in GET schema', async () => {
        const id = await upload(s.b);
        const res = await patch(s.b, id, MODEL);
        expect(res.status).toBe(200);
        expect(res.json.data).toMatchObject({ templateId: id, version: 2 });
        const fields = res.json.data.schema.fields as Field[];
        expect(byPdfName(fields, 'TextField')).toMatchObject({ name: 'customer', description: 'Who buys' });
        expect(byPdfName(fields, 'RichTextField')).toMatchObject({
          name: 'RichTextField',
          default: 'Default text here',
        });
        expect(byPdfName(fields, 'ComboBox-DefaultValue')).toMatchObject({ constant: 'Opt02' });
        expect(byPdfName(fields, 'LongRichTextField')).toMatchObject({ hidden: true });
        expect(byPdfName(fields, 'Checkbox')).toMatchObject({ required: true });
        expect(byPdfName(fields, 'TextField-DefaultValue')).not.toHaveProperty('description');
        expect((await schemaOf(s.b, id)).schema.fields).toEqual(fields);
        expect((await api(s, s.b).get(`/v1/templates/${id}`)).json.data.version).toBe(2);
      });

      it('JSON Schema follows: new keys, default, const, description, required; hidden fields left out', async () => {
        const id = await upload(s.b);
        await patch(s.b, id, MODEL);
        const schema = (await api(s, s.b).get(`/v1/templates/${id}/json-schema`)).json.data.schema;
        expect(schema.properties.customer.description).toMatch(/^Who buys\n\n/);
        expect(schema.properties.TextField).toBeUndefined();
        expect(schema.properties.RichTextField.default).toBe('Default text here');
        expect(schema.properties['ComboBox-DefaultValue']).toMatchObject({ const: 'Opt02', readOnly: true });
        expect(schema.properties.LongRichTextField).toBeUndefined();
        expect(schema.required).toEqual(['Checkbox']);
      });

      it('renders with the new key and the PDF name, draws defaults and constants, never hidden fields', async () => {
        const id = await upload(s.b);
        await render(s.b, id, { TextField: 'warm the cache' }); // the analysis is cached before the PATCH
        await patch(s.b, id, MODEL);
        const res = await render(s.b, id, {
          customer: 'Ada Lovelace',
          Checkbox: true,
          LongRichTextField: 'SECRETWORD',
        });
        expect(res.status).toBe(201);
        expect(res.json.data.warnings).toEqual(['Field "LongRichTextField" is hidden; its value was ignored']);
        const text = await downloaded(res.json.data.downloadUrl);
        expect(text).toContain('Ada Lovelace');
        expect(text).toContain('Default text here');
        expect(text).toContain('Opt02');
        expect(text).not.toContain('SECRETWORD');
        // the PDF name stays a key; the render records the version it used
        const byPdf = await render(s.b, id, { TextField: 'Grace Hopper', Checkbox: true });
        expect(byPdf.json.data.warnings).toEqual([]);
        expect(await downloaded(byPdf.json.data.downloadUrl)).toContain('Grace Hopper');
        const detail = await api(s, s.b).get(`/v1/renders/${byPdf.json.data.renderId}`);
        expect(detail.json.data.templateVersion).toBe(2);
      });

      it('refuses data for a constant, and a missing required field in strict mode', async () => {
        const id = await upload(s.b);
        await patch(s.b, id, MODEL);
        const constant = await render(s.b, id, { 'ComboBox-DefaultValue': 'Opt01', Checkbox: true });
        expect(constant.status).toBe(422);
        expect(constant.json.error.details.field).toBe('ComboBox-DefaultValue');
        const missing = await render(s.b, id, { customer: 'x' }, { strict: true });
        expect(missing.status).toBe(422);
        expect(missing.json.error.details).toMatchObject({ field: 'Checkbox', received: 'nothing' });
      });

      it('names the version an old key belonged to: a warning, or VALIDATION_ERROR in strict mode', async () => {
        const id = await upload(s.b);
        await patch(s.b, id, { fields: { TextField: { name: 'customer' } } });
        await patch(s.b, id, { fields: { customer: { name: 'buyer' } } });
        const res = await render(s.b, id, { customer: 'x', buyer: 'y' });
        expect(res.json.data.warnings).toEqual([
          'Unknown field "customer" ignored: it was a key of version 2 of this template',
        ]);
        const strict = await render(s.b, id, { customer: 'x' }, { strict: true });
        expect(strict.status).toBe(422);
        expect(strict.json.error.message).toContain('version 2');
      });

      it('formats a date default as data is formatted', async () => {
        const id = await upload(s.b, 'pdfjs-date-formats.pdf');
        const sent = await render(s.b, id, { Date1_af_date: '2024-03-05' });
        await patch(s.b, id, { fields: { Date1_af_date: { default: '2024-03-05' } } });
        const defaulted = await render(s.b, id, {});
        const want = await downloaded(sent.json.data.downloadUrl);
        expect(want).toContain('05-mars-24'); // the field's AFDate format, in the render locale
        expect(await downloaded(defaulted.json.data.downloadUrl)).toBe(want);
      });

      it('previews, batches and async renders follow the settings', async () => {
        const id = await upload(s.b);
        await patch(s.b, id, MODEL);
        const preview = await fetch(`${s.url}/v1/templates/${id}/preview`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.b.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ data: { customer: 'Preview Person', Checkbox: true } }),
        });
        expect(preview.status).toBe(200);
        const previewText = await textOf(await preview.arrayBuffer());
        expect(previewText).toContain('Preview Person');
        expect(previewText).toContain('Default text here');

        const batch = await api(s, s.b).post('/v1/renders/batch', {
          items: [{ templateId: id, data: { customer: 'Batch Person', Checkbox: true }, options: { strict: true } }],
        });
        expect(batch.status).toBe(202);
        const refused = await api(s, s.b).post('/v1/renders/batch', {
          items: [{ templateId: id, data: { 'ComboBox-DefaultValue': 'Opt01' } }],
        });
        expect(refused.status).toBe(422);

        const accepted = await render(s.b, id, { customer: 'Async Person', Checkbox: true }, { async: true });
        expect(accepted.status).toBe(202);
        const done = await until(async () => {
          const r = await api(s, s.b).get(`/v1/renders/${accepted.json.data.renderId}`);
          return r.json.data.status === 'pending' ? undefined : r.json.data;
        }, 'the async render');
        expect(done.status).toBe('completed');
        const text = await downloaded(done.downloadUrl);
        expect(text).toContain('Async Person');
        expect(text).toContain('Opt02');
      });

      it('answers one VALIDATION_ERROR naming every bad field, and saves nothing', async () => {
        const id = await upload(s.b);
        const before = await schemaOf(s.b, id);
        const res = await patch(s.b, id, {
          fields: {
            TextField: { name: 'dup' },
            RichTextField: { name: 'dup' },
            Checkbox: { default: 'yes' },
            'ComboBox-DefaultValue': { default: 'Opt09' },
            Nowhere: { hidden: true },
            ListBox: { description: 'fine on its own' },
          },
        });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('VALIDATION_ERROR');
        const named = (res.json.error.details.errors as { field: string }[]).map((e) => e.field).sort();
        expect(named).toEqual(
          [
            'fields.TextField.name',
            'fields.RichTextField.name',
            'fields.Checkbox.default',
            'fields.ComboBox-DefaultValue.default',
            'fields.Nowhere',
          ].sort(),
        );
        expect(res.json.error.details).toMatchObject({ field: expect.any(String), expected: expect.any(String) });
        expect(await schemaOf(s.b, id)).toEqual(before);
      });

      it('refuses 5,000 changes at once', async () => {
        const id = await upload(s.b);
        const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field${i}`, { hidden: true }]));
        const res = await patch(s.b, id, { fields });
        expect(res.status).toBe(422);
        expect(res.json.error.details).toMatchObject({ field: 'fields', received: '5000 fields' });
        expect((await api(s, s.b).get(`/v1/templates/${id}`)).json.data.version).toBe(1);
      });

      it('keeps the version for a request that changes nothing, and refuses an empty body', async () => {
        const id = await upload(s.b);
        const res = await patch(s.b, id, { fields: { TextField: { name: 'TextField', hidden: false } } });
        expect(res.status).toBe(200);
        expect(res.json.data.version).toBe(1);
        expect((await patch(s.b, id, {})).status).toBe(422);
        expect((await patch(s.b, id, { fields: {}, colour: 'red' })).status).toBe(422);
      });

      it('adopts every suggested name read from the page (the French Cerfa) in one call, and renders with them', async () => {
        const CERFA = 'france-cerfa-10103-14-contrat-apprentissage.pdf';
        const id = await upload(s.b, CERFA);
        const before = (await schemaOf(s.b, id)).schema.fields as Field[];
        const res = await patch(s.b, id, { useSuggestedNames: true });
        expect(res.status).toBe(200);
        const after = res.json.data.schema.fields as Field[];
        // every key is the suggestion made from its caption: ASCII snake_case, unique, short
        for (const f of after) expect(f.name).toBe(byPdfName(before, f.pdfMeta.originalName).suggestedName);
        const names = after.map((f) => f.name);
        expect(new Set(names).size).toBe(names.length);
        for (const n of names) expect(n).toMatch(/^[a-z0-9_]{1,40}$/);
        expect(names).toContain('nom_et_prenom_ou_denomination');
        const field = after.find((f) => f.name === 'nom_et_prenom_ou_denomination')!;
        const out = await render(s.b, id, { nom_et_prenom_ou_denomination: 'Dupont Boulangerie' });
        expect(out.status).toBe(201);
        expect(out.json.data.warnings).toEqual([]);
        expect(await downloaded(out.json.data.downloadUrl)).toContain('Dupont Boulangerie');
        // the PDF name still works
        const byPdf = await render(s.b, id, { [field.pdfMeta.originalName]: 'Martin SARL' });
        expect(await downloaded(byPdf.json.data.downloadUrl)).toContain('Martin SARL');
      });

      it('answers TEMPLATE_FROZEN for a frozen template and changes nothing', async () => {
        const id = await upload(s.b);
        await api(s, s.b).patch(`/v1/templates/${id}`, { isFrozen: true });
        const res = await patch(s.b, id, MODEL);
        expect(res.status).toBe(409);
        expect(res.json.error.code).toBe('TEMPLATE_FROZEN');
        expect((await schemaOf(s.b, id)).version).toBe(1);
      });

      it("answers TEMPLATE_NOT_FOUND for another account's template", async () => {
        const id = await upload(s.b);
        const res = await patch(s.a, id, MODEL);
        expect(res.status).toBe(404);
        expect(res.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        expect((await schemaOf(s.b, id)).version).toBe(1);
      });

      it('publishes template.updated with the new version in the transaction of the change', async () => {
        const id = await upload(s.b);
        await patch(s.b, id, MODEL);
        const events = await s.runtime.db
          .selectFrom('events')
          .select(['type', 'data'])
          .where('account_id', '=', s.b.accountId)
          .where('type', '=', 'template.updated')
          .execute();
        const mine = events.map((e) => JSON.parse(e.data)).filter((d) => d.id === id);
        expect(mine).toEqual([expect.objectContaining({ id, version: 2 })]);
      });
    },
  );
}
