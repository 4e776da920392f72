// The TypeScript client (packages/client) against a real server: uploads, schema, idempotent renders,
// downloads, pagination and typed errors. Retries are in retries.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, FormcastError, pages, type FormcastClient } from '../../packages/client/src/index.js';
import { corpusDir } from '../helpers/corpus.js';
import { halfForm, printedForm } from '../helpers/flat-forms.js';
import { hasTool, pdftotext } from '../helpers/pdf-tools.js';
import { DATABASES, startServer, TestClock, type TestServer } from '../helpers/server.js';
import { makeIdentity, pdfsig } from '../helpers/signing.js';

const corpus = corpusDir();
const pdf = (name: string) => new Uint8Array(readFileSync(path.join(corpus!, 'pdfs', name)));

for (const db of DATABASES)
  describe.skipIf(!corpus || !db.enabled)(
    `@formcast/client against a real server [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let client: FormcastClient;
      const clock = new TestClock(Date.parse('2031-03-10T09:00:00Z'));
      const work = mkdtempSync(path.join(tmpdir(), 'formcast-client-'));
      let templateId: string;

      beforeAll(async () => {
        s = await startServer(db.name, { overrides: { clock } });
        client = createClient({ baseUrl: s.url, apiKey: s.b.key });
      });
      afterAll(async () => {
        await s?.close();
        rmSync(work, { recursive: true, force: true });
      });

      it('uploads a corpus form (multipart) and reads its schema', async () => {
        const template = await client.templates.upload(pdf('pdfjs-required-fields.pdf'), {
          name: 'Required fields',
          description: 'from the client',
          fileName: 'required.pdf',
        });
        expect(template).toMatchObject({
          name: 'Required fields',
          fileName: 'required.pdf',
          version: 1,
          fieldCount: 8,
        });
        expect(template.description).toBe('from the client');
        templateId = template.id;

        const schema = await client.templates.schema(templateId);
        expect(schema.templateId).toBe(templateId);
        const fields = Object.fromEntries(schema.schema.fields.map((f) => [f.name, f.type]));
        expect(fields).toMatchObject({ Text1: 'text', Text2: 'text', 'Check Box3': 'checkbox', Group5: 'radio' });
        expect(await client.templates.get(templateId)).toEqual(template);
      });

      it("sets the fields' own keys and defaults with templates.updateFields, typed", async () => {
        const template = await client.templates.upload(pdf('pdfjs-required-fields.pdf'));
        const schema = await client.templates.updateFields(template.id, {
          fields: { Text1: { name: 'first_line', description: 'The first line' }, Text2: { default: 'n/a' } },
        });
        expect(schema.version).toBe(2);
        const byPdf = Object.fromEntries(schema.schema.fields.map((f) => [f.pdfMeta.originalName, f]));
        expect(byPdf.Text1).toMatchObject({ name: 'first_line', description: 'The first line' });
        expect(byPdf.Text2.default).toBe('n/a');
        const bad = await client.templates
          .updateFields(template.id, { fields: { nope: { hidden: true } } })
          .catch((e) => e);
        expect(bad).toBeInstanceOf(FormcastError);
        expect(bad.details.errors).toEqual([expect.objectContaining({ field: 'fields.nope' })]);
      });

      it("edits the PDF's fields with templates.editFields, typed, and throws the refused ones", async () => {
        const template = await client.templates.upload(pdf('pdfjs-required-fields.pdf'));
        const schema = await client.templates.editFields(template.id, [
          { op: 'add', field: { name: 'sdk_note', type: 'text', page: 1, rect: [40, 60, 200, 80] } },
          { op: 'delete', name: 'Text2' },
        ]);
        expect(schema.version).toBe(2);
        expect(schema.schema.fieldMapping?.added.map((f) => f.originalName)).toEqual(['sdk_note']);
        const bad = await client.templates
          .editFields(template.id, [
            { op: 'add', field: { name: 'off', type: 'text', page: 1, rect: [40, 60, 40, 80] } },
          ])
          .catch((e) => e);
        expect(bad).toBeInstanceOf(FormcastError);
        expect(bad.details.errors).toEqual([expect.objectContaining({ field: 'off' })]);
      });

      it("lists a template's versions with templates.listVersions, newest first, typed", async () => {
        const template = await client.templates.upload(pdf('pdfjs-required-fields.pdf'));
        await client.templates.updateFields(template.id, { fields: { Text1: { name: 'first_line' } } });
        await client.templates.editFields(template.id, [{ op: 'delete', name: 'Text2' }]);
        const page = await client.templates.listVersions(template.id, { limit: 2 });
        expect(page.meta).toEqual({ page: 1, limit: 2, total: 3, hasMore: true, nextCursor: '2' });
        expect(page.data.map((v) => [v.version, v.change, v.keys])).toEqual([
          [3, 'file', 7],
          [2, 'fields', 8],
        ]);
        const report = page.data[0].report;
        expect(report && 'removed' in report ? report.removed : null).toEqual([
          { key: 'Text2', originalName: 'Text2' },
        ]);
        expect(page.data[1].report).toEqual({ changed: ['Text1'] });
        const rest = await client.templates.listVersions(template.id, { startingAfter: 2 });
        expect(rest.data.map((v) => [v.version, v.change, v.report])).toEqual([[1, 'earlier', null]]);
        const other = createClient({ baseUrl: s.url, apiKey: s.a.key });
        await expect(other.templates.listVersions(template.id)).rejects.toMatchObject({
          code: 'TEMPLATE_NOT_FOUND',
          status: 404,
        });
      });

      it('detects the fields of a flat PDF with upload({ detectFields }) and adds missed ones with detectFields(id)', async () => {
        await expect(client.templates.upload(await printedForm())).rejects.toMatchObject({ code: 'INVALID_PDF' });
        const created = await client.templates.upload(await printedForm(), { detectFields: true });
        expect(created.detections?.map((d) => d.key)).toContain('code_postal');
        expect(created.fieldCount).toBe(created.detections?.length);
        const half = await client.templates.upload(await halfForm());
        const added = await client.templates.detectFields(half.id);
        expect(added.detections.map((d) => [d.key, d.type])).toEqual([['employer', 'text']]);
        expect(added.template.version).toBe(2);
      });

      it('takes a Blob (or File) as well as bytes, named after the File', async () => {
        const file = new File([pdf('pdfjs-required-fields.pdf')], 'as-a-file.pdf', { type: 'application/pdf' });
        const template = await client.templates.upload(file);
        expect(template).toMatchObject({ name: 'as-a-file.pdf', fileName: 'as-a-file.pdf' });
        await client.templates.delete(template.id);
        await expect(client.templates.get(template.id)).rejects.toMatchObject({
          code: 'TEMPLATE_NOT_FOUND',
          status: 404,
        });
      });

      it('renders once for the same Idempotency-Key, and downloads the PDF through the signed link', async () => {
        const body = { templateId, data: { Text1: 'Client idempotent 4711' } };
        const first = await client.renders.create(body, { idempotencyKey: 'client-render-1' });
        const again = await client.renders.create(body, { idempotencyKey: 'client-render-1' });
        expect(again.renderId).toBe(first.renderId);
        expect((await client.usage.get()).renders.used).toBe(1);

        const bytes = await client.renders.download(first);
        expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
        expect(bytes.length).toBe(first.fileSize);
        if (hasTool('pdftotext')) {
          const file = path.join(work, 'render.pdf');
          writeFileSync(file, bytes);
          expect(await pdftotext(file)).toContain('Client idempotent 4711');
        }
        // by id: the client asks for a fresh link first
        expect(await client.renders.download(first.renderId)).toEqual(bytes);
      });

      it('renews an expired download link by itself', async (ctx) => {
        // S3's pre-signed links expire by the S3 server's clock, which the test cannot move
        if (s.nativeDownloads) return ctx.skip();
        const render = await client.renders.create({ templateId, data: { Text2: 'later' } });
        clock.advance(901_000); // links live 900 s
        const direct = await fetch(render.downloadUrl ?? expect.fail('a synchronous render has a link'));
        expect(direct.status).toBe(403);
        const bytes = await client.renders.download(render);
        expect(bytes.length).toBe(render.fileSize);
      });

      it('makes up an Idempotency-Key per call, so two calls are two renders', async () => {
        const before = (await client.usage.get()).renders.used;
        const a = await client.renders.create({ templateId, data: {} });
        const b = await client.renders.create({ templateId, data: {} });
        expect(a.renderId).not.toBe(b.renderId);
        expect((await client.usage.get()).renders.used).toBe(before + 2);
      });

      it('walks every page of renders and templates with async iterators', async () => {
        const t = await s.newTenant('Pro');
        const c = createClient({ baseUrl: s.url, apiKey: t.key });
        const tpl = await c.templates.upload(pdf('pdfjs-required-fields.pdf'));
        const made: string[] = [];
        for (let i = 0; i < 5; i++) made.push((await c.renders.create({ templateId: tpl.id, data: {} })).renderId);
        const seen: string[] = [];
        for await (const r of c.renders.all({ limit: 2 })) seen.push(r.id);
        expect(seen).toEqual([...made].reverse()); // newest first, each once, over 3 pages

        const sizes: number[] = [];
        for await (const page of pages((cursor) => c.renders.list({ page: cursor.page, limit: 2 }))) {
          sizes.push(page.data.length);
          expect(page.meta.total).toBe(5);
        }
        expect(sizes).toEqual([2, 2, 1]);

        for (let i = 0; i < 2; i++) await c.templates.upload(pdf('pdfjs-required-fields.pdf'), { name: `more ${i}` });
        const names: string[] = [];
        for await (const template of c.templates.all({ limit: 2 })) names.push(template.name);
        expect(names).toEqual(['more 1', 'more 0', 'template.pdf']); // 2 pages; a nameless upload is "template.pdf"
      });

      it('throws FormcastError with code, details and request id on an invalid request', async () => {
        const err = await client.renders
          .create({ templateId, data: { no_such_field: 'x' }, options: { strict: true } })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(FormcastError);
        const e = err as FormcastError;
        expect(e.status).toBe(422);
        expect(e.code).toBe('VALIDATION_ERROR');
        expect(e.details).toMatchObject({ field: 'no_such_field' });
        expect(typeof e.details?.expected).toBe('string');
        expect(e.requestId).toMatch(/^req_/);
        expect(e.message).toContain('no_such_field');

        const limit = await client.renders.list({ limit: 500 }).catch((x: FormcastError) => x);
        expect(limit).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'limit' } });
      });

      it('stores a signing certificate from .p12 bytes, signs a render with it (pdfsig), lists and deletes it', async () => {
        // valid over the test clock's 2031
        const id = makeIdentity(work, 'client', 4000);
        const cert = await client.signingCertificates.create(readFileSync(id.p12File), 'p12-secret', {
          name: 'Client seal',
        });
        expect(cert).toMatchObject({
          name: 'Client seal',
          isDefault: true,
          subject: expect.stringContaining('CN=client signer'),
        });
        expect((await client.signingCertificates.list()).map((c) => c.id)).toEqual([cert.id]);
        await expect(client.signingCertificates.create(id.p12, 'wrong')).rejects.toMatchObject({
          code: 'VALIDATION_ERROR',
          status: 422,
        });
        const own = await client.templates.upload(pdf('pdfjs-required-fields.pdf'));
        const render = await client.renders.create({
          templateId: own.id,
          data: { Text2: 'sealed' },
          options: { sign: cert.id },
        });
        const file = path.join(work, 'client-signed.pdf');
        writeFileSync(file, await client.renders.download(render));
        expect(pdfsig(file)).toContain('Signature Validation: Signature is Valid.');
        await client.signingCertificates.delete(cert.id);
        expect(await client.signingCertificates.list()).toEqual([]);
        await expect(client.signingCertificates.delete(cert.id)).rejects.toMatchObject({
          code: 'SIGNING_CERTIFICATE_NOT_FOUND',
        });
      });

      it('throws UNAUTHORIZED for a revoked key, and reaches the typed openapi-fetch client as `raw`', async () => {
        const created = await client.apiKeys.create('to revoke');
        expect(created.key).toMatch(/^fc_/);
        const other = createClient({ baseUrl: s.url, apiKey: created.key });
        expect((await other.usage.get()).plan).toBe('Pro');
        await client.apiKeys.revoke(created.id);
        await expect(other.usage.get()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
        const listed = await client.apiKeys.list();
        expect(listed.find((k) => k.id === created.id)?.revokedAt).not.toBeNull();

        const { data, response } = await client.raw.GET('/v1/templates/{id}', { params: { path: { id: templateId } } });
        expect(response.status).toBe(200);
        expect(data?.data.id).toBe(templateId);
      });
    },
  );
