// The template schema's labels over HTTP: where each label came from, a suggested key and option
// labels; a stored analysis from before they existed is completed on read, on every database.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const FORM = 'libreoffice-form.pdf';

type Field = Record<string, any>;

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `field labels in the template schema [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      const upload = async () => (await api(s, s.b).post('/v1/templates', uploadForm(pdf(FORM), FORM))).json.data.id;
      const schemaOf = async (id: string) =>
        (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as Field[];

      beforeAll(async () => {
        s = await startServer(db.name);
      });
      afterAll(async () => s?.close());

      it('gives every field a label source and a unique suggested key, and options their labels', async () => {
        const fields = await schemaOf(await upload());
        for (const f of fields) {
          expect(['tooltip', 'page', 'none']).toContain(f.labelSource);
          expect(f.suggestedName).toMatch(/^[a-z0-9_]{1,40}$/);
          expect(f.labelSource === 'none').toBe(f.label === null);
        }
        expect(new Set(fields.map((f) => f.suggestedName)).size).toBe(fields.length);
        const byName = new Map(fields.map((f) => [f.pdfMeta.originalName, f]));
        expect(fields.find((f) => f.label === 'First Name')).toMatchObject({
          labelSource: 'page',
          suggestedName: 'first_name',
        });
        const radio = fields.find((f) => f.type === 'radio') as Field;
        expect(radio).toMatchObject({ label: 'Gender', optionLabels: ['Female', 'Male'] });
        expect(radio.optionLabels).toHaveLength(radio.options.length);
        const dropdown = fields.find((f) => f.type === 'dropdown') as Field;
        expect(dropdown.optionLabels).toHaveLength(dropdown.options.length);
        expect(byName.size).toBe(fields.length);
      });

      it('completes a stored analysis from before labels had a source, once, on read', async () => {
        const id = await upload();
        const current = await schemaOf(id);
        // the row as the previous release left it: label was the tooltip only, the new keys absent
        const row = await s.runtime.db
          .selectFrom('templates')
          .select(['analysis', 'blob_key'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const old = JSON.parse(row.analysis);
        for (const f of old.fields) {
          f.label = null;
          delete f.labelSource;
          delete f.suggestedName;
          delete f.optionLabels;
        }
        const oldKey = row.blob_key.replace(/\.pdf$/, '-old.pdf');
        await s.runtime.blobs.put(oldKey, pdf(FORM));
        await s.runtime.db
          .updateTable('templates')
          .set({ analysis: JSON.stringify(old), blob_key: oldKey })
          .where('id', '=', id)
          .execute();

        expect(await schemaOf(id)).toEqual(current);
        const stored = await s.runtime.db
          .selectFrom('templates')
          .select('analysis')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(JSON.parse(stored.analysis).fields.every((f: Field) => f.labelSource && f.suggestedName)).toBe(true);
      });
    },
  );
}
