import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `templates over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      const upload = (t: Tenant, name = 'pdfjs-required-fields.pdf', fields: Record<string, string> = {}) =>
        api(s, t).post('/v1/templates', uploadForm(pdf(name), name, fields));

      beforeAll(async () => {
        s = await startServer(db.name);
      });
      afterAll(async () => s?.close());

      it('creates a template from a real form with the fields of the reference', async () => {
        const res = await upload(s.b, 'luxembourg-certificat-salaire-160-2019.pdf', { description: 'Certificat' });
        expect(res.status).toBe(201);
        const t = res.json.data;
        expect(t).toMatchObject({
          name: 'luxembourg-certificat-salaire-160-2019.pdf',
          description: 'Certificat',
          fileName: 'luxembourg-certificat-salaire-160-2019.pdf',
          isFrozen: false,
          version: 1,
        });
        expect(t.id).toMatch(/^tpl_/);
        expect(t.fileSize).toBe(pdf('luxembourg-certificat-salaire-160-2019.pdf').byteLength);
        expect(t.fieldCount).toBeGreaterThan(50);
        expect(t.createdAt).toMatch(/Z$/);
      });

      it('serves the schema with every field, type and page', async () => {
        const created = await upload(s.b, 'pdfjs-required-fields.pdf', { name: 'Required' });
        const res = await api(s, s.b).get(`/v1/templates/${created.json.data.id}/schema`);
        expect(res.status).toBe(200);
        expect(res.json.data).toMatchObject({ templateId: created.json.data.id, templateName: 'Required', version: 1 });
        expect(res.json.data.schema.pageCount).toBe(1);
        expect(res.json.data.schema.fields.length).toBe(created.json.data.fieldCount);
        for (const f of res.json.data.schema.fields) {
          expect(f).toEqual(
            expect.objectContaining({
              name: expect.any(String),
              type: expect.any(String),
              required: expect.any(Boolean),
              pdfMeta: expect.objectContaining({ originalName: expect.any(String), page: 1 }),
            }),
          );
          expect(f).not.toHaveProperty('detail');
        }
        expect(res.json.data.schema.fields.some((f: { required: boolean }) => f.required)).toBe(true);
      });

      it('lists in the schema what outputs leave out of a reader-extended hybrid form', async () => {
        const created = await upload(s.b, 'irs-fw9-2018.pdf');
        const res = await api(s, s.b).get(`/v1/templates/${created.json.data.id}/schema`);
        expect(res.json.data.schema.removedFromOutput.map((r: { feature: string }) => r.feature)).toEqual(
          expect.arrayContaining(['usage-rights', 'xfa']),
        );
        const plain = await upload(s.b, 'pdfjs-required-fields.pdf');
        expect(
          (await api(s, s.b).get(`/v1/templates/${plain.json.data.id}/schema`)).json.data.schema.removedFromOutput,
        ).toEqual([]);
      });

      it.each([
        ['negative-not-a-pdf.pdf'],
        ['negative-truncated-scan.pdf'],
        ['negative-no-acroform-cerfa-12101-03.pdf'],
        ['negative-corrupted-xref-startxref-past-eof.pdf'],
      ])('answers INVALID_PDF for %s', async (name) => {
        const res = await upload(s.b, name);
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('INVALID_PDF');
      });

      it('answers FILE_TOO_LARGE for a file over the plan limit, before reading it all', async () => {
        const t = await s.newTenant('Free');
        const big = new Uint8Array(11 * 1_048_576);
        const res = await api(s, t).post('/v1/templates', uploadForm(big, 'big.pdf'));
        expect(res.status).toBe(413);
        expect(res.json.error.code).toBe('FILE_TOO_LARGE');
      });

      it('answers BAD_REQUEST for multipart without a file and for a JSON body', async () => {
        const form = new FormData();
        form.append('name', 'x');
        const noFile = await api(s, s.b).post('/v1/templates', form);
        expect(noFile.status).toBe(400);
        expect(noFile.json.error.code).toBe('BAD_REQUEST');
        const json = await api(s, s.b).post('/v1/templates', { name: 'x' });
        expect(json.status).toBe(400);
        expect(json.json.error.code).toBe('BAD_REQUEST');
      });

      it('answers VALIDATION_ERROR for a name over 200 characters', async () => {
        const res = await upload(s.b, 'pdfjs-required-fields.pdf', { name: 'n'.repeat(201) });
        expect(res.status).toBe(422);
        expect(res.json.error.details.field).toBe('name');
      });

      it('answers TEMPLATE_LIMIT_REACHED at the quota, exactly under concurrent uploads', async () => {
        const t = await s.newTenant('Free'); // 5 templates
        const results = await Promise.all(Array.from({ length: 8 }, () => upload(t)));
        expect(results.filter((r) => r.status === 201)).toHaveLength(5);
        const refused = results.filter((r) => r.status === 403);
        expect(refused).toHaveLength(3);
        expect(refused[0].json.error.code).toBe('TEMPLATE_LIMIT_REACHED');
        const usage = await api(s, t).get('/v1/renders/usage');
        expect(usage.json.data.templates).toEqual({ used: 5, limit: 5 });
      });

      it('lists newest first without description, paginated and stable', async () => {
        const t = await s.newTenant('Pro');
        const ids: string[] = [];
        for (let i = 0; i < 5; i++)
          ids.push((await upload(t, 'pdfjs-required-fields.pdf', { name: `t${i}` })).json.data.id);
        const p1 = await api(s, t).get('/v1/templates?limit=2');
        expect(p1.json.meta).toEqual({ page: 1, limit: 2, total: 5, hasMore: true, nextCursor: ids[3] });
        expect(p1.json.data[0]).not.toHaveProperty('description');
        const p2 = await api(s, t).get('/v1/templates?limit=2&page=2');
        const p3 = await api(s, t).get('/v1/templates?limit=2&page=3');
        const seen = [...p1.json.data, ...p2.json.data, ...p3.json.data].map((x: { id: string }) => x.id);
        expect(seen).toEqual([...ids].reverse());
      });

      it('updates name and description without raising the version, and refuses unknown keys', async () => {
        const id = (await upload(s.b)).json.data.id;
        const res = await api(s, s.b).patch(`/v1/templates/${id}`, { name: 'Renamed', description: 'Desc' });
        expect(res.status).toBe(200);
        expect(res.json.data).toMatchObject({ name: 'Renamed', description: 'Desc', version: 1 });
        const bad = await api(s, s.b).patch(`/v1/templates/${id}`, { colour: 'red' });
        expect(bad.status).toBe(422);
        expect(bad.json.error.details.field).toBe('colour');
        const empty = await api(s, s.b).patch(`/v1/templates/${id}`, {});
        expect(empty.status).toBe(422);
        const wrongType = await api(s, s.b).patch(`/v1/templates/${id}`, { isFrozen: 'yes' });
        expect(wrongType.status).toBe(422);
      });

      it('answers TEMPLATE_FROZEN to edits, file replacement and DELETE of a frozen template', async () => {
        const id = (await upload(s.b)).json.data.id;
        expect((await api(s, s.b).patch(`/v1/templates/${id}`, { isFrozen: true })).json.data.isFrozen).toBe(true);
        const patch = await api(s, s.b).patch(`/v1/templates/${id}`, { name: 'x' });
        expect(patch.status).toBe(409);
        expect(patch.json.error.code).toBe('TEMPLATE_FROZEN');
        const put = await api(s, s.b).put(
          `/v1/templates/${id}/file`,
          uploadForm(pdf('pdfjs-date-formats.pdf'), 'd.pdf'),
        );
        expect(put.status).toBe(409);
        const del = await api(s, s.b).delete(`/v1/templates/${id}`);
        expect(del.status).toBe(409);
        expect((await api(s, s.b).patch(`/v1/templates/${id}`, { isFrozen: false })).status).toBe(200);
        expect((await api(s, s.b).delete(`/v1/templates/${id}`)).status).toBe(204);
      });

      it('replaces the file with a new version and re-extracts the schema', async () => {
        const id = (await upload(s.b)).json.data.id;
        const put = await api(s, s.b).put(
          `/v1/templates/${id}/file`,
          uploadForm(pdf('pdfjs-date-formats.pdf'), 'dates.pdf'),
        );
        expect(put.status).toBe(200);
        expect(put.json.data).toMatchObject({ version: 2, fileName: 'dates.pdf' });
        const schema = await api(s, s.b).get(`/v1/templates/${id}/schema`);
        expect(schema.json.data.version).toBe(2);
        expect(schema.json.data.schema.fields.map((f: { type: string }) => f.type)).toContain('date');
        const invalid = await api(s, s.b).put(
          `/v1/templates/${id}/file`,
          uploadForm(pdf('negative-not-a-pdf.pdf'), 'x.pdf'),
        );
        expect(invalid.json.error.code).toBe('INVALID_PDF');
        expect((await api(s, s.b).get(`/v1/templates/${id}`)).json.data.version).toBe(2);
      });

      it('deletes irreversibly', async () => {
        const id = (await upload(s.b)).json.data.id;
        expect((await api(s, s.b).delete(`/v1/templates/${id}`)).status).toBe(204);
        const again = await api(s, s.b).get(`/v1/templates/${id}`);
        expect(again.status).toBe(404);
        expect(again.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        expect(again.json.error.message).toContain(id);
      });

      it("answers TEMPLATE_NOT_FOUND for every route on another account's template", async () => {
        const id = (await upload(s.b)).json.data.id;
        const asA = api(s, s.a);
        const answers = [
          await asA.get(`/v1/templates/${id}`),
          await asA.get(`/v1/templates/${id}/schema`),
          await asA.patch(`/v1/templates/${id}`, { name: 'stolen' }),
          await asA.put(`/v1/templates/${id}/file`, uploadForm(pdf('pdfjs-date-formats.pdf'), 'd.pdf')),
          await asA.delete(`/v1/templates/${id}`),
        ];
        for (const r of answers) {
          expect(r.status).toBe(404);
          expect(r.json.error.code).toBe('TEMPLATE_NOT_FOUND');
        }
        expect((await asA.get('/v1/templates')).json.data.map((t: { id: string }) => t.id)).not.toContain(id);
        expect((await api(s, s.b).get(`/v1/templates/${id}`)).json.data.name).toBe('pdfjs-required-fields.pdf');
      });
    },
  );
}
