// GET /v1/templates/:id/versions lists what template_versions records, newest first: the version before the
// first change (`earlier`), a PATCH of the fields with the keys it changed, a new file with its mapping.
// Paged by `page`/`limit` and by a version number as `starting_after`; scoped to the account.
import { PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';

async function buildForm(names: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  names.forEach((name, i) => {
    form.createTextField(name).addToPage(page, { x: 50, y: 700 - i * 50, width: 200, height: 20, borderWidth: 0 });
  });
  return doc.save();
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `GET /v1/templates/:id/versions [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let id: string;
      const upload = async (t: Tenant, bytes: Uint8Array) =>
        (await api(s, t).post('/v1/templates', uploadForm(bytes, 'form.pdf'))).json.data.id as string;
      const versions = (t: Tenant, templateId: string, query = '') =>
        api(s, t).get(`/v1/templates/${templateId}/versions${query}`);

      beforeAll(async () => {
        s = await startServer(db.name);
        id = await upload(s.b, await buildForm(['name', 'email', 'legacy']));
        const patched = await api(s, s.b).patch(`/v1/templates/${id}/fields`, {
          fields: { name: { name: 'full_name' }, email: { required: true } },
        });
        expect(patched.status).toBe(200);
        const replaced = await api(s, s.b).put(
          `/v1/templates/${id}/file`,
          uploadForm(await buildForm(['phone', 'name', 'email', 'fax']), 'form-v2.pdf'),
        );
        expect(replaced.status).toBe(200);
        expect(replaced.json.data.version).toBe(3);
      });
      afterAll(async () => {
        await s?.close();
      });

      it('lists the history newest first: the new file with its mapping, the fields change, the version before', async () => {
        const res = await versions(s.b, id);
        expect(res.status).toBe(200);
        expect(res.json.meta).toEqual({ page: 1, limit: 20, total: 3, hasMore: false, nextCursor: null });
        expect(
          res.json.data.map((v: { version: number; change: string; keys: number }) => [v.version, v.change, v.keys]),
        ).toEqual([
          [3, 'file', 4],
          [2, 'fields', 3],
          [1, 'earlier', 3],
        ]);
        const [file, fields, earlier] = res.json.data;
        expect(file.report).toEqual({
          kept: [
            { key: 'full_name', originalName: 'name' },
            { key: 'email', originalName: 'email' },
          ],
          renamedInPdf: [],
          added: [
            { key: 'phone', originalName: 'phone' },
            { key: 'fax', originalName: 'fax' },
          ],
          removed: [{ key: 'legacy', originalName: 'legacy' }],
          dropped: [],
        });
        // a fields change records the PDF names of the fields whose settings it changed
        expect(fields.report).toEqual({ changed: ['name', 'email'] });
        expect(earlier.report).toBeNull();
        for (const v of res.json.data) expect(Number.isNaN(Date.parse(v.createdAt))).toBe(false);
        expect(Date.parse(file.createdAt)).toBeGreaterThanOrEqual(Date.parse(fields.createdAt));
        // the current version's mapping is the one GET schema reports
        const schema = await api(s, s.b).get(`/v1/templates/${id}/schema`);
        expect(schema.json.data.schema.fieldMapping).toEqual(file.report);
      });

      it('pages by page and limit, and by a version number as starting_after (the total stays the whole list)', async () => {
        const first = await versions(s.b, id, '?limit=2');
        expect(first.json.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
        expect(first.json.meta).toEqual({ page: 1, limit: 2, total: 3, hasMore: true, nextCursor: '2' });
        const second = await versions(s.b, id, '?limit=2&page=2');
        expect(second.json.data.map((v: { version: number }) => v.version)).toEqual([1]);
        const after = await versions(s.b, id, '?limit=2&starting_after=2');
        expect(after.json.data.map((v: { version: number }) => v.version)).toEqual([1]);
        expect(after.json.meta).toEqual({ page: 1, limit: 2, total: 3, hasMore: false, nextCursor: null });
        const afterFirst = await versions(s.b, id, '?starting_after=3');
        expect(afterFirst.json.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
        for (const bad of ['?starting_after=0', '?starting_after=v2', '?limit=101']) {
          const res = await versions(s.b, id, bad);
          expect(res.status, bad).toBe(422);
          expect(res.json.error.code).toBe('VALIDATION_ERROR');
        }
      });

      it('is empty for a template never changed (its history starts at its first change)', async () => {
        const fresh = await upload(s.b, await buildForm(['a']));
        const res = await versions(s.b, fresh);
        expect(res.status).toBe(200);
        expect(res.json).toEqual({
          data: [],
          meta: { page: 1, limit: 20, total: 0, hasMore: false, nextCursor: null },
        });
      });

      it("answers TEMPLATE_NOT_FOUND for another tenant's template and an unknown id", async () => {
        for (const [tenant, templateId] of [
          [s.a, id],
          [s.b, 'tpl_missing'],
        ] as const) {
          const res = await versions(tenant, templateId);
          expect(res.status).toBe(404);
          expect(res.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        }
      });
    },
  );
}
