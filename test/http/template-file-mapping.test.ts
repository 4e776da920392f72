// PUT /v1/templates/:id/file keeps the keys, defaults and rules of the fields a new edition maps to the old
// (same PDF name, else same label and type, else the same name part nearby, else the same place, else the
// labels alike and the layout around the pairs: test/templates/map-fields.test.ts), and
// reports what it kept, renamed, added and removed; a key of a removed field is named with its version.
// On two forms built here (fields moved, renamed, added, removed), on every storage backend.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFHexString, PDFName } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { pdftotext } from '../helpers/pdf-tools.js';

type Box = { x: number; y: number; width?: number; height?: number };
type Spec =
  | { kind: 'text'; name: string; at: Box; tooltip?: string }
  | { kind: 'check'; name: string; at: Box; tooltip?: string }
  | { kind: 'dropdown'; name: string; at: Box; options: string[] };

async function buildForm(specs: Spec[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  for (const s of specs) {
    const at = { width: 200, height: 20, borderWidth: 0, ...s.at };
    const field =
      s.kind === 'text'
        ? form.createTextField(s.name)
        : s.kind === 'check'
          ? form.createCheckBox(s.name)
          : form.createDropdown(s.name);
    if (s.kind === 'dropdown') form.getDropdown(s.name).addOptions(s.options);
    if (s.kind === 'check') form.getCheckBox(s.name).addToPage(page, { ...at, width: 12, height: 12 });
    else if (s.kind === 'text') form.getTextField(s.name).addToPage(page, at);
    else form.getDropdown(s.name).addToPage(page, at);
    if ('tooltip' in s && s.tooltip) field.acroField.dict.set(PDFName.of('TU'), PDFHexString.fromText(s.tooltip));
  }
  return doc.save();
}

/** Edition 1 and 2 of a small form: one field moved, one renamed in place, one renamed and moved under
 * the same label, one whose options changed, one added, one removed. */
const EDITION_1: Spec[] = [
  { kind: 'text', name: 'name', at: { x: 50, y: 700 } },
  { kind: 'text', name: 'email', at: { x: 50, y: 650 } },
  { kind: 'check', name: 'agree', at: { x: 50, y: 600 }, tooltip: 'I agree to the terms' },
  { kind: 'dropdown', name: 'country', at: { x: 50, y: 550 }, options: ['FR', 'DE'] },
  { kind: 'text', name: 'legacy', at: { x: 300, y: 500 } },
];
const EDITION_2: Spec[] = [
  { kind: 'text', name: 'phone', at: { x: 50, y: 450 } },
  { kind: 'text', name: 'name', at: { x: 60, y: 690 } },
  { kind: 'text', name: 'e_mail', at: { x: 52, y: 651 } },
  { kind: 'check', name: 'consent', at: { x: 400, y: 300 }, tooltip: 'I agree to the terms' },
  { kind: 'dropdown', name: 'country', at: { x: 50, y: 550 }, options: ['FR', 'IT'] },
];
/** A form generated again under renamed parents, with a line inserted above (everything moved down). */
const REGENERATED_1: Spec[] = [
  { kind: 'text', name: 'form1.page1.f1_1', at: { x: 50, y: 700 } },
  { kind: 'text', name: 'form1.page1.f1_2', at: { x: 50, y: 670 } },
  { kind: 'check', name: 'form1.page1.box.c1_1', at: { x: 50, y: 640 } },
  { kind: 'text', name: 'form1.page1.f1_9', at: { x: 300, y: 400 } },
];
const REGENERATED_2: Spec[] = [
  { kind: 'text', name: 'form2.page1.top.f1_03', at: { x: 50, y: 720 } },
  { kind: 'text', name: 'form2.page1.f1_01', at: { x: 50, y: 676 } },
  { kind: 'text', name: 'form2.page1.f1_02', at: { x: 50, y: 646 } },
  { kind: 'check', name: 'form2.page1.boxes.c1_1', at: { x: 50, y: 616 } },
];

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `PUT /v1/templates/:id/file keeps mapped keys [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let dir: string;
      let n = 0;
      const upload = async (t: Tenant, bytes: Uint8Array) =>
        (await api(s, t).post('/v1/templates', uploadForm(bytes, 'form.pdf'))).json.data.id as string;
      const replace = (t: Tenant, id: string, bytes: Uint8Array) =>
        api(s, t).put(`/v1/templates/${id}/file`, uploadForm(bytes, 'form-v2.pdf'));
      const render = (t: Tenant, templateId: string, data: unknown, options: Record<string, unknown> = {}) =>
        api(s, t).post('/v1/renders', { templateId, data, options: { watermark: false, ...options } });
      const downloaded = async (url: string) => {
        const file = path.join(dir, `out-${++n}.pdf`);
        writeFileSync(file, Buffer.from(await (await fetch(url)).arrayBuffer()));
        return pdftotext(file);
      };

      beforeAll(async () => {
        s = await startServer(db.name);
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-mapping-'));
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('keeps keys, defaults and rules of mapped fields and reports kept, renamed, added, removed', async () => {
        const id = await upload(s.b, await buildForm(EDITION_1));
        const set = await api(s, s.b).patch(`/v1/templates/${id}/fields`, {
          fields: {
            name: { name: 'full_name', required: true },
            email: { name: 'mail', default: 'someone@example.com' },
            agree: { name: 'ok' },
            country: { default: 'DE' },
            legacy: { name: 'old_field' },
          },
        });
        expect(set.json.data.version).toBe(2);

        const res = await replace(s.b, id, await buildForm(EDITION_2));
        expect(res.status).toBe(200);
        expect(res.json.data.version).toBe(3);
        const mapping = res.json.data.fieldMapping;
        expect(mapping).toEqual({
          kept: [
            { key: 'full_name', originalName: 'name' },
            { key: 'country', originalName: 'country' },
          ],
          renamedInPdf: [
            { key: 'mail', originalName: 'e_mail', from: 'email', by: 'place', confidence: 0.8 },
            { key: 'ok', originalName: 'consent', from: 'agree', by: 'label', confidence: 0.95 },
          ],
          added: [{ key: 'phone', originalName: 'phone' }],
          removed: [{ key: 'old_field', originalName: 'legacy' }],
          dropped: [
            { key: 'country', originalName: 'country', setting: 'default', reason: expect.stringContaining('DE') },
          ],
        });

        const schema = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data;
        expect(schema.version).toBe(3);
        expect(schema.schema.fieldMapping).toEqual(mapping);
        const byPdf = Object.fromEntries(schema.schema.fields.map((f: any) => [f.pdfMeta.originalName, f]));
        expect(byPdf.name).toMatchObject({ name: 'full_name', required: true });
        expect(byPdf.e_mail).toMatchObject({ name: 'mail', default: 'someone@example.com' });
        expect(byPdf.consent.name).toBe('ok');
        expect(byPdf.country).not.toHaveProperty('default');

        // the old keys render the new file; the removed one is named with the version it belonged to
        const out = await render(s.b, id, { full_name: 'Ada Lovelace', ok: true, old_field: 'gone' });
        expect(out.status).toBe(201);
        expect(out.json.data.warnings).toEqual([
          'Unknown field "old_field" ignored: it was a key of version 2 of this template',
        ]);
        const text = await downloaded(out.json.data.downloadUrl);
        expect(text).toContain('Ada Lovelace');
        expect(text).toContain('someone@example.com');
        const strict = await render(s.b, id, { full_name: 'x', legacy: 'y' }, { strict: true });
        expect(strict.status).toBe(422);
        expect(strict.json.error.message).toContain('version 2');
      });

      it('keeps the keys of a form generated again under renamed parents, moved down by a new line', async () => {
        const id = await upload(s.b, await buildForm(REGENERATED_1));
        const before = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields;
        const keys = before.map((f: any) => f.name);
        const res = await replace(s.b, id, await buildForm(REGENERATED_2));
        expect(res.status).toBe(200);
        const m = res.json.data.fieldMapping;
        expect(m.renamedInPdf.map((r: any) => [r.from, r.originalName, r.by])).toEqual([
          ['form1.page1.f1_1', 'form2.page1.f1_01', 'name-part'],
          ['form1.page1.f1_2', 'form2.page1.f1_02', 'name-part'],
          ['form1.page1.box.c1_1', 'form2.page1.boxes.c1_1', 'name-part'],
        ]);
        expect(m.added.map((a: any) => a.originalName)).toEqual(['form2.page1.top.f1_03']);
        expect(m.removed.map((r: any) => r.originalName)).toEqual(['form1.page1.f1_9']);
        const after = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields;
        const keyOf = (pdfName: string) => after.find((f: any) => f.pdfMeta.originalName === pdfName).name;
        const oldKeyOf = (pdfName: string) => before.find((f: any) => f.pdfMeta.originalName === pdfName).name;
        expect(keyOf('form2.page1.f1_01')).toBe(oldKeyOf('form1.page1.f1_1'));
        expect(keyOf('form2.page1.f1_02')).toBe(oldKeyOf('form1.page1.f1_2'));
        expect(keyOf('form2.page1.boxes.c1_1')).toBe(oldKeyOf('form1.page1.box.c1_1'));
        const out = await render(s.b, id, { [keys[0]]: 'Alpha line', [keys[1]]: 'Beta line' });
        expect(out.json.data.warnings).toEqual([]);
        const text = await downloaded(out.json.data.downloadUrl);
        expect(text).toContain('Alpha line');
        expect(text).toContain('Beta line');
      });

      it('answers a file replacement of a template never changed before with its mapping, and null before', async () => {
        const id = await upload(s.b, await buildForm(EDITION_1));
        expect((await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fieldMapping).toBeNull();
        const res = await replace(s.b, id, await buildForm(EDITION_1));
        expect(res.json.data.fieldMapping.kept).toHaveLength(5);
        expect(res.json.data.fieldMapping.added).toEqual([]);
      });
    },
  );
}
