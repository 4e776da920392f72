// POST /v1/templates/:id/field-edits: the field editor through the API. Edits run in the render worker,
// the result is stored as the next version (keys and settings kept by PDF name, the mapping reported),
// every refused edit names its field and saves nothing. On a corpus form and on a flat page built here,
// on every storage backend.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolEngine } from '../../src/adapters/engine/pool-engine.js';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';
import { pdftkFields, pdftotext } from '../helpers/pdf-tools.js';

const corpus = corpusDir();
const corpusPdf = (name: string) => new Uint8Array(readFileSync(path.join(corpus!, 'pdfs', name)));

/** A printed page with one form field (a PDF without any is refused at upload): the flat form to draw on. */
async function flatForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('DECLARATION DE SITUATION', { x: 50, y: 780, size: 16, font });
  page.drawText('Nom :', { x: 50, y: 700, size: 11, font });
  doc.getForm().createTextField('seed').addToPage(page, { x: 400, y: 20, width: 100, height: 16, borderWidth: 0 });
  return doc.save();
}

const at = (y: number, w = 160, h = 20): [number, number, number, number] => [40, y, 40 + w, y + h];

/** One new field of each kind the API must handle, on page 1 at the bottom left. */
const NEW_FIELDS = [
  { op: 'add', field: { name: 'ed_text', type: 'text', page: 1, rect: at(60) } },
  { op: 'add', field: { name: 'ed_amount', type: 'number', page: 1, rect: at(90), decimals: 2 } },
  { op: 'add', field: { name: 'ed_date', type: 'date', page: 1, rect: at(120), dateFormat: 'dd/mm/yyyy' } },
  { op: 'add', field: { name: 'ed_agree', type: 'checkbox', page: 1, rect: at(150, 14, 14) } },
  {
    op: 'add',
    field: {
      name: 'ed_choice',
      type: 'radio',
      options: ['One', 'Two'],
      widgets: [
        { page: 1, rect: at(180, 14, 14) },
        { page: 1, rect: [70, 180, 84, 194] },
      ],
    },
  },
  { op: 'add', field: { name: 'ed_country', type: 'dropdown', page: 1, rect: at(210), options: ['Alpha', 'Beta'] } },
  { op: 'add', field: { name: 'ed_zip', type: 'comb', page: 1, rect: at(240, 100), cells: 5 } },
];

const VALUES = {
  ed_text: 'Edited Dupont',
  ed_amount: 1234.5,
  ed_date: '2024-12-24',
  ed_agree: true,
  ed_choice: 'Two',
  ed_country: 'Beta',
  ed_zip: 'AB123',
};

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `POST /v1/templates/:id/field-edits [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 120_000 },
    () => {
      let s: TestServer;
      let dir: string;
      let n = 0;
      const upload = async (bytes: Uint8Array) => {
        const res = await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'form.pdf'));
        expect(res.status).toBe(201);
        return res.json.data.id as string;
      };
      const edit = (id: string, edits: unknown[], tenant = s.b) =>
        api(s, tenant).post(`/v1/templates/${id}/field-edits`, { edits });
      const schemaOf = async (id: string) => (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data;
      const keyOf = (schema: any, pdfName: string) =>
        schema.schema.fields.find((f: any) => f.pdfMeta.originalName === pdfName)?.name as string;
      /** Renders `data` and saves the file; its path. */
      const render = async (id: string, data: Record<string, unknown>, flatten: boolean) => {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: id,
          data,
          options: { flatten, watermark: false },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const file = path.join(dir, `out-${++n}.pdf`);
        writeFileSync(file, Buffer.from(await (await fetch(res.json.data.downloadUrl)).arrayBuffer()));
        return file;
      };

      beforeAll(async () => {
        s = await startServer(db.name);
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-field-edits-'));
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('adds, moves and deletes fields of a corpus form as version + 1, keeping a team key, and renders them by key', async () => {
        const id = await upload(corpusPdf('pdfjs-required-fields.pdf'));
        const own = await api(s, s.b).patch(`/v1/templates/${id}/fields`, {
          fields: { Text1: { name: 'client_name' } },
        });
        expect(own.json.data.version).toBe(2);
        const before = await schemaOf(id);
        const keysBefore = Object.fromEntries(before.schema.fields.map((f: any) => [f.pdfMeta.originalName, f.name]));

        const res = await edit(id, [
          ...NEW_FIELDS,
          { op: 'update', name: 'client_name', changes: { rect: [300, 60, 500, 80] } },
          { op: 'delete', name: 'Text2' },
        ]);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        const after = res.json.data;
        expect(after.version).toBe(3);
        const mapping = after.schema.fieldMapping;
        expect(mapping.added.map((f: any) => f.originalName).sort()).toEqual(
          NEW_FIELDS.map((e) => e.field.name).sort(),
        );
        expect(mapping.removed).toEqual([{ key: keysBefore.Text2, originalName: 'Text2' }]);
        // every field left keeps its key, the team's own included
        for (const [pdfName, key] of Object.entries(keysBefore))
          if (pdfName !== 'Text2') expect(keyOf(after, pdfName)).toBe(key);
        const moved = after.schema.fields.find((f: any) => f.name === 'client_name');
        expect(moved.pdfMeta.rect).toEqual([300, 60, 500, 80]);
        expect(await schemaOf(id)).toEqual(after);

        const data: Record<string, unknown> = { client_name: 'Moved Martin' };
        for (const [pdfName, value] of Object.entries(VALUES)) data[keyOf(after, pdfName)] = value;
        for (const flatten of [true, false]) {
          const file = await render(id, data, flatten);
          const text = await pdftotext(file);
          for (const shown of ['Edited Dupont', '1,234.50', '24/12/2024', 'Beta', 'Moved Martin'])
            expect(text, `flatten ${flatten}`).toContain(shown);
          expect(text.replace(/\s+/g, '')).toContain('AB123');
          if (!flatten) {
            const fields = Object.fromEntries((await pdftkFields(file)).map((f) => [f.name, f]));
            expect(Object.keys(fields)).toEqual(expect.arrayContaining(Object.keys(VALUES)));
            expect(fields).not.toHaveProperty('Text2');
            expect(fields.ed_agree.values[0]).not.toMatch(/^(Off)?$/);
            expect(fields.ed_choice.values[0]).not.toMatch(/^(Off)?$/);
            expect(fields.ed_country.values).toEqual(['Beta']);
          }
        }
      });

      it('draws fields on a flat page: its only field deleted, new ones added, version + 1 per call', async () => {
        const id = await upload(await flatForm());
        const first = await edit(id, [{ op: 'delete', name: 'seed' }, NEW_FIELDS[0], NEW_FIELDS[3]]);
        expect(first.status, JSON.stringify(first.json)).toBe(200);
        expect(first.json.data.version).toBe(2);
        expect(first.json.data.schema.fields.map((f: any) => f.pdfMeta.originalName).sort()).toEqual([
          'ed_agree',
          'ed_text',
        ]);
        // a new field's key is its name, as the README's example renders it
        expect(keyOf(first.json.data, 'ed_text')).toBe('ed_text');
        const second = await edit(id, [NEW_FIELDS[5]]);
        expect(second.json.data.version).toBe(3);
        const third = await edit(id, [{ op: 'update', name: 'ed_text', changes: { rect: [100, 700, 300, 718] } }]);
        expect(third.json.data.version).toBe(4);
        const schema = third.json.data;
        const file = await render(
          id,
          { [keyOf(schema, 'ed_text')]: 'Jeanne Martin', [keyOf(schema, 'ed_country')]: 'Alpha' },
          true,
        );
        const text = await pdftotext(file);
        expect(text).toContain('DECLARATION DE SITUATION');
        expect(text).toContain('Jeanne Martin');
        expect(text).toContain('Alpha');
      });

      describe('refuses, naming the field and saving nothing', () => {
        let id: string;
        beforeAll(async () => {
          id = await upload(corpusPdf('pdfjs-required-fields.pdf'));
          await api(s, s.b).patch(`/v1/templates/${id}/fields`, { fields: { Text1: { name: 'client_name' } } });
        });
        const cases: [string, unknown[], string, RegExp][] = [
          [
            'a box off the page',
            [{ op: 'add', field: { name: 'off', type: 'text', page: 1, rect: [500, 700, 800, 720] } }],
            'off',
            /not inside page 1/,
          ],
          [
            'a box of zero size',
            [{ op: 'add', field: { name: 'flat', type: 'text', page: 1, rect: [40, 40, 40, 60] } }],
            'flat',
            /zero or negative size/,
          ],
          [
            'overlapping radio widgets',
            [
              {
                op: 'add',
                field: {
                  name: 'overlap',
                  type: 'radio',
                  options: ['a', 'b'],
                  widgets: [
                    { page: 1, rect: [40, 40, 60, 60] },
                    { page: 1, rect: [50, 50, 70, 70] },
                  ],
                },
              },
            ],
            'overlap',
            /overlap/,
          ],
          [
            'duplicate options',
            [{ op: 'add', field: { name: 'dup', type: 'dropdown', page: 1, rect: at(40), options: ['A', 'A'] } }],
            'dup',
            /listed twice/,
          ],
          [
            "a new field named like another field's key",
            [{ op: 'add', field: { name: 'client_name', type: 'text', page: 1, rect: at(40) } }],
            'client_name',
            /render key of the field "Text1"/,
          ],
          [
            "a new field named like another field's PDF name",
            [{ op: 'add', field: { name: 'Text2', type: 'text', page: 1, rect: at(40) } }],
            'Text2',
            /exists already/,
          ],
          [
            'a move off the page, by key',
            [{ op: 'update', name: 'client_name', changes: { rect: [40, 40, 200, 900] } }],
            'client_name',
            /not inside page 1/,
          ],
          ['an unknown field', [{ op: 'delete', name: 'nope' }], 'nope', /./],
        ];
        for (const [label, edits, field, message] of cases) {
          it(`answers VALIDATION_ERROR for ${label}`, async () => {
            const res = await edit(id, edits);
            expect(res.status).toBe(422);
            expect(res.json.error.code).toBe('VALIDATION_ERROR');
            expect(res.json.error.details.field).toBe(field);
            // each entry has the shape of every VALIDATION_ERROR's details.errors[]: field, expected, received, message
            expect(res.json.error.details.errors[0]).toEqual({
              field,
              expected: expect.any(String),
              received: expect.any(String),
              message: expect.stringMatching(message),
            });
            expect((await schemaOf(id)).version).toBe(2);
          });
        }

        it('lists every problem of the request at once', async () => {
          const res = await edit(id, [
            { op: 'add', field: { name: 'client_name', type: 'text', page: 1, rect: at(40) } },
            { op: 'add', field: { name: 'dup', type: 'dropdown', page: 1, rect: at(70), options: ['A', 'A'] } },
            { op: 'update', name: 'client_name', changes: { rect: [40, 40, 40, 60] } },
          ]);
          expect(res.status).toBe(422);
          expect(res.json.error.details.errors.map((e: any) => e.field)).toEqual(['client_name', 'dup', 'client_name']);
          expect((await schemaOf(id)).version).toBe(2);
        });

        it("answers VALIDATION_ERROR for more edits than the engine's maxEdits (1000), before loading the template", async () => {
          const res = await edit(
            id,
            Array.from({ length: 1001 }, () => ({ op: 'delete', name: 'Text2' })),
          );
          expect(res.status).toBe(422);
          expect(res.json.error.code).toBe('VALIDATION_ERROR');
          expect(res.json.error.details).toMatchObject({ field: 'edits' });
          expect(res.json.error.message).toContain('1000');
          expect((await schemaOf(id)).version).toBe(2);
        });

        it('answers VALIDATION_ERROR for an edit of an unknown op or an empty list, before the engine', async () => {
          const bad = await edit(id, [{ op: 'rename', name: 'Text1' }]);
          expect(bad.status).toBe(422);
          expect(bad.json.error.code).toBe('VALIDATION_ERROR');
          expect(bad.json.error.details.field).toMatch(/^edits\.0/);
          const empty = await edit(id, []);
          expect(empty.status).toBe(422);
          const wrongType = await edit(id, [
            { op: 'add', field: { name: 'x', type: 'slider', page: 1, rect: at(40) } },
          ]);
          expect(wrongType.status).toBe(422);
          expect(wrongType.json.error.details.expected).toContain('"text"');
        });
      });

      it('answers TEMPLATE_FROZEN for a frozen template and saves nothing', async () => {
        const id = await upload(corpusPdf('pdfjs-required-fields.pdf'));
        await api(s, s.b).patch(`/v1/templates/${id}`, { isFrozen: true });
        const res = await edit(id, [NEW_FIELDS[0]]);
        expect(res.status).toBe(409);
        expect(res.json.error.code).toBe('TEMPLATE_FROZEN');
        expect((await schemaOf(id)).version).toBe(1);
      });

      it("answers TEMPLATE_NOT_FOUND for another account's template", async () => {
        const id = await upload(corpusPdf('pdfjs-required-fields.pdf'));
        const res = await edit(id, [NEW_FIELDS[0]], s.a);
        expect(res.status).toBe(404);
        expect(res.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        expect((await schemaOf(id)).version).toBe(1);
      });
    },
  );
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `field edits survive a render worker killed mid-edit [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 180_000 },
    () => {
      const held = heldJobs();
      let s: TestServer;
      let id: string;
      const version = async () => (await api(s, s.b).get(`/v1/templates/${id}`)).json.data.version;
      beforeAll(async () => {
        const pool = heldPool(held);
        s = await startServer(db.name, { overrides: { engine: poolEngine(pool, {}) } });
        const upload = api(s, s.b).post('/v1/templates', uploadForm(corpusPdf('pdfjs-required-fields.pdf'), 'r.pdf'));
        held.release(await held.next());
        id = (await upload).json.data.id;
      });
      afterAll(async () => {
        await s?.close();
        held.cleanup();
      });

      it('retries the edit once on a fresh worker and saves it once', async () => {
        const res = api(s, s.b).post(`/v1/templates/${id}/field-edits`, { edits: [NEW_FIELDS[0]] });
        const first = await held.next();
        held.kill(first);
        const second = await held.next([first]);
        held.release(second);
        held.release(await held.next([first])); // the same worker, now analysing the new file
        const done = await res;
        expect(done.status, JSON.stringify(done.json)).toBe(200);
        expect(done.json.data.version).toBe(2);
        expect(await version()).toBe(2);
      });

      it('answers 503 SERVICE_UNAVAILABLE when the fresh worker dies too, saving nothing', async () => {
        const res = api(s, s.b).post(`/v1/templates/${id}/field-edits`, { edits: [NEW_FIELDS[1]] });
        const first = await held.next();
        held.kill(first);
        const second = await held.next([first]);
        held.kill(second);
        const done = await res;
        expect(done.status).toBe(503);
        expect(done.json.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(await version()).toBe(2);
      });
    },
  );
}
