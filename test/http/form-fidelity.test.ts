// Form-fidelity defect classes (issue 22) through the API: forms built for each class are uploaded,
// rendered and the downloaded PDFs read by independent tools.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ESCAPED_FIELDS,
  amountsForm,
  encryptWithLiteralStrings,
  escapedStringsForm,
  outsideBoxesForm,
} from '../helpers/fidelity-forms.js';
import { hasTool, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';
import { pdfjsValue, readWithPdfjs } from '../helpers/pdfjs.js';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `form fidelity over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let tmp: string;
      beforeAll(async () => {
        s = await startServer(db.name);
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fidelity-http-'));
      });
      afterAll(async () => {
        await s?.close();
        fs.rmSync(tmp, { recursive: true, force: true });
      });

      const upload = async (bytes: Uint8Array, name: string) => {
        const res = await api(s, s.b).post('/v1/templates', uploadForm(bytes, name));
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        return res.json.data.id as string;
      };
      const render = (templateId: string, data: Record<string, unknown>, options: Record<string, unknown> = {}) =>
        api(s, s.b).post('/v1/renders', { templateId, data, options: { locale: 'en-US', ...options } });
      const download = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());

      it('prints currencies written as JavaScript escapes as their symbols, in /V and on the page', async () => {
        const id = await upload(await amountsForm(), 'amounts.pdf');
        const open = await render(id, { euro: 1234.5, pound: -1234.5 }, { flatten: false });
        expect(open.status, JSON.stringify(open.json)).toBe(201);
        const fields = (await readWithPdfjs(await download(open.json.data.downloadUrl))).fields!;
        expect(pdfjsValue(fields.euro)).toBe('€ 1,234.50');
        expect(pdfjsValue(fields.pound)).toBe('(£1,234.50)');
        if (!hasTool('pdftotext')) return;
        const flat = await render(id, { euro: 1234.5, pound: -1234.5 }, { flatten: true });
        const file = path.join(tmp, 'amounts-flat.pdf');
        fs.writeFileSync(file, await download(flat.json.data.downloadUrl));
        const text = await pdftotext(file);
        expect(text).toContain('€ 1,234.50');
        expect(text).toContain('(£1,234.50)');
      });
      it.skipIf(!hasTool('qpdf'))(
        'renders encrypted forms with literal strings: names kept, outputs pass qpdf --check (RC4 40, AES-256)',
        async () => {
          const plain = await escapedStringsForm();
          for (const scheme of ['RC4 40', 'AES-256'] as const) {
            const id = await upload(encryptWithLiteralStrings(plain, scheme, tmp), `encrypted-${scheme}.pdf`);
            const schema = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema;
            expect(schema.fields.map((f: { pdfMeta: { originalName: string } }) => f.pdfMeta.originalName)).toEqual(
              Object.keys(ESCAPED_FIELDS),
            );
            const data = Object.fromEntries(Object.keys(ESCAPED_FIELDS).map((k) => [k, `${k} set\\`]));
            for (const flatten of [false, true]) {
              const res = await render(id, data, { flatten });
              expect(res.status, JSON.stringify(res.json)).toBe(201);
              const file = path.join(tmp, `encrypted-${flatten}.pdf`);
              fs.writeFileSync(file, await download(res.json.data.downloadUrl));
              const check = await qpdfCheck(file);
              expect(check.code, `${scheme} ${flatten}: ${check.output}`).toBe(0);
              if (!flatten) {
                const fields = (await readWithPdfjs(fs.readFileSync(file))).fields ?? {};
                expect(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, pdfjsValue(v)]))).toEqual(data);
              }
            }
          }
        },
      );
      it('refuses a number longer than its comb in strict mode, states the bound in the JSON Schema, cuts it otherwise', async () => {
        const id = await upload(await amountsForm(), 'comb.pdf');
        const strict = await render(id, { comb: 1234.5 }, { strict: true });
        expect(strict.status).toBe(422);
        expect(strict.json.error.code).toBe('VALIDATION_ERROR');
        expect(strict.json.error.details).toMatchObject({ field: 'comb' });
        const schema = (await api(s, s.b).get(`/v1/templates/${id}/json-schema`)).json.data.schema;
        expect(schema.properties.comb).toMatchObject({ exclusiveMinimum: -9.5, exclusiveMaximum: 99.5 });
        expect((await render(id, { comb: 99 }, { strict: true })).status).toBe(201);
        const lax = await render(id, { comb: 1234.5 }, { flatten: false });
        expect(lax.status).toBe(201);
        expect(lax.json.data.warnings).toContain(
          'Field "comb" was cut to its maximum length of 2 characters (received 4: "1235")',
        );
        const fields = (await readWithPdfjs(await download(lax.json.data.downloadUrl))).fields!;
        expect(pdfjsValue(fields.comb)).toBe('12');
      });
      it('warns in the render answer about a field outside its page, naming it', async () => {
        const id = await upload(await outsideBoxesForm(), 'outside.pdf');
        const res = await render(id, { inside: 'In', offPage: 'Gone' }, { flatten: true });
        expect(res.status).toBe(201);
        expect(res.json.data.warnings).toContain(
          `field "offPage" lies outside its page's visible area (MediaBox/CropBox); its value is stored but never shown`,
        );
        expect(res.json.data.warnings.join(' ')).not.toContain('"inside" lies outside');
      });
    },
  );
}
