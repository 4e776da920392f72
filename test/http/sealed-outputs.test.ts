import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { api, DATABASES, startServer, uploadWithTextField, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';

// Issue 26 over HTTP, on both backends: every render's SHA-256 and POST /renders/verify (provenance),
// options.protect (AES-256, checked by qpdf, MuPDF and pdf.js, never by our own code).

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const PROTECT = {
  userPassword: 'open sesame',
  ownerPassword: 'owner-Secret-9',
  permissions: { print: true, copy: false, modify: false, annotate: true, fillForms: false },
};

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `sealed outputs over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let tpl: string;
      let field: string;
      let dir: string;

      beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-sealed-'));
        s = await startServer(db.name);
        ({ tpl, field } = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf')));
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      const used = async () => (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used as number;
      const render = async (options: Record<string, unknown> = {}, value = 'sealed hello') => {
        const res = await api(s, s.b).post('/v1/renders', { templateId: tpl, data: { [field]: value }, options });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const bytes = new Uint8Array(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());
        return { data: res.json.data, bytes };
      };
      const verify = (bytes: Uint8Array, tenant = s.b) =>
        api(s, tenant).post('/v1/renders/verify', uploadForm(bytes, 'file.pdf'));

      it("records each render's own SHA-256 while the workers' shared base file is hashed once", async () => {
        // the pool engine answers these with one base object and each render's own part after it
        for (const value of ['first value', 'second, longer value', 'first value']) {
          const { data, bytes } = await render({}, value);
          expect(data.sha256).toBe(sha(bytes));
        }
      });

      it("records the file's SHA-256 in the answer, the render resource and the render.completed event", async () => {
        const { data, bytes } = await render();
        expect(data.sha256).toBe(sha(bytes));
        const detail = (await api(s, s.b).get(`/v1/renders/${data.renderId}`)).json.data;
        expect(detail).toMatchObject({ sha256: sha(bytes), protected: false, signed: false });
        const events = await s.runtime.db
          .selectFrom('events')
          .selectAll()
          .where('account_id', '=', s.b.accountId)
          .where('type', '=', 'render.completed')
          .execute();
        const event = events.map((e) => JSON.parse(e.data)).find((d) => d.id === data.renderId);
        expect(event.sha256).toBe(sha(bytes));
      });

      it('verify: the exact file, the file with a revision added, a changed byte, a stranger, another tenant; never charged', async () => {
        const { data, bytes } = await render({}, 'provenance');
        const before = await used();

        const exact = await verify(bytes);
        expect(exact.status).toBe(200);
        expect(exact.json.data).toMatchObject({
          result: 'verified',
          sha256: sha(bytes),
          render: { id: data.renderId },
        });

        // an incremental save after ours (what a viewer's "save" does): the render is named, as modified
        const appended = Buffer.concat([bytes, Buffer.from('\n1 0 obj\n<< >>\nendobj\n%%EOF\n')]);
        expect((await verify(appended)).json.data).toMatchObject({ result: 'modified', render: { id: data.renderId } });

        const changed = Buffer.from(bytes);
        const at = changed.indexOf('/Producer');
        changed[at > 0 ? at + 1 : 200] ^= 0x01;
        expect((await verify(changed)).json.data).toMatchObject({ result: 'unknown', render: null });
        expect((await verify(pdf('pdfjs-required-fields.pdf'))).json.data.result).toBe('unknown');
        // tenant a never sees b's render
        expect((await verify(bytes, s.a)).json.data).toMatchObject({ result: 'unknown', render: null });

        expect(await used()).toBe(before);
      });

      it('verify: no file part is a 400, a body over the plan limit a 413', async () => {
        const form = new FormData();
        form.append('name', 'x');
        expect((await api(s, s.b).post('/v1/renders/verify', form)).json.error.code).toBe('BAD_REQUEST');
        const big = await api(s, s.a).post('/v1/renders/verify', uploadForm(new Uint8Array(30 * 1024 * 1024), 'x.pdf'));
        expect(big.status).toBe(413);
      });

      it('protect: AES-256 R6 that qpdf, MuPDF and pdf.js open only with a password, with the permissions asked', async () => {
        const { data, bytes } = await render({ protect: PROTECT }, 'protected value');
        expect(data.sha256).toBe(sha(bytes));
        const file = path.join(dir, `${db.name}-protected.pdf`);
        writeFileSync(file, bytes);

        // qpdf: no password, no entry; the user password shows R6 AESv3 and the permissions
        expect(spawnSync('qpdf', ['--check', file]).status).not.toBe(0);
        const shown = execFileSync('qpdf', [
          `--password=${PROTECT.userPassword}`,
          '--show-encryption',
          file,
        ]).toString();
        expect(shown).toContain('R = 6');
        expect(shown).toMatch(/file encryption method: AESv3/);
        expect(shown).toMatch(/print high resolution: allowed/);
        expect(shown).toMatch(/extract for any purpose: not allowed/);
        expect(shown).toMatch(/modify annotations: allowed/);
        expect(shown).toMatch(/modify forms: not allowed/);
        expect(shown).toMatch(/modify other: not allowed/);
        const owner = execFileSync('qpdf', [
          `--password=${PROTECT.ownerPassword}`,
          '--show-encryption',
          file,
        ]).toString();
        expect(owner).toContain('Supplied password is owner password');
        expect(spawnSync('qpdf', [`--password=${PROTECT.userPassword}`, '--check', file]).status).toBe(0);

        // MuPDF: the text comes out only with the password
        const text = (pw?: string) =>
          spawnSync('mutool', ['draw', '-F', 'txt', ...(pw ? ['-p', pw] : []), file, '1'], { encoding: 'utf8' });
        expect(text().stdout).not.toContain('protected value');
        expect(text(PROTECT.userPassword).stdout).toContain('protected value');

        // pdf.js: PasswordException without it; with it, the permissions it reports
        await expect(getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise).rejects.toMatchObject({
          name: 'PasswordException',
        });
        const doc = await getDocument({ data: new Uint8Array(bytes), password: PROTECT.userPassword, verbosity: 0 })
          .promise;
        const perms = await doc.getPermissions();
        expect(perms).toContain(4); // PRINT
        expect(perms).toContain(32); // MODIFY_ANNOTATIONS
        expect(perms).not.toContain(16); // COPY
        expect(perms).not.toContain(8); // MODIFY_CONTENTS
        expect(perms).not.toContain(256); // FILL_INTERACTIVE_FORMS
        const page = await doc.getPage(1);
        const content = await page.getTextContent();
        expect(content.items.map((i) => ('str' in i ? i.str : '')).join('')).toContain('protected value');
        await doc.destroy();

        // the record says protected, and no password rests anywhere in the database
        const detail = (await api(s, s.b).get(`/v1/renders/${data.renderId}`)).json.data;
        expect(detail).toMatchObject({ protected: true, signed: false });
        for (const table of ['renders', 'events', 'idempotency_keys', 'render_jobs'] as const) {
          const rows = await s.runtime.db.selectFrom(table).selectAll().execute();
          expect(JSON.stringify(rows)).not.toContain(PROTECT.ownerPassword);
          expect(JSON.stringify(rows)).not.toContain(PROTECT.userPassword);
        }
        expect((await verify(bytes)).json.data).toMatchObject({ result: 'verified', render: { id: data.renderId } });
      });

      it('protect: without a user password anyone opens it, the permissions still apply', async () => {
        const { bytes } = await render({ protect: { ...PROTECT, userPassword: undefined } });
        const file = path.join(dir, `${db.name}-owner-only.pdf`);
        writeFileSync(file, bytes);
        const shown = execFileSync('qpdf', ['--show-encryption', file]).toString();
        expect(shown).toContain('R = 6');
        expect(shown).toMatch(/extract for any purpose: not allowed/);
      });

      it('protect: wrong types, a missing owner password, async renders and batch items are VALIDATION_ERRORs, not charged', async () => {
        const before = await used();
        const bad = [
          { protect: { ...PROTECT, permissions: { ...PROTECT.permissions, print: 'yes' } } },
          { protect: { userPassword: 'x', permissions: PROTECT.permissions } },
          { protect: { ...PROTECT, ownerPassword: '' } },
          { protect: { ...PROTECT, permissions: { print: true } } },
          { protect: PROTECT, async: true },
        ];
        for (const options of bad) {
          const res = await api(s, s.b).post('/v1/renders', { templateId: tpl, data: { [field]: 'x' }, options });
          expect(res.status, JSON.stringify(options)).toBe(422);
          expect(res.json.error.code).toBe('VALIDATION_ERROR');
          expect(JSON.stringify(res.json)).not.toContain(PROTECT.ownerPassword);
        }
        const batch = await api(s, s.b).post('/v1/renders/batch', {
          items: [{ templateId: tpl, data: { [field]: 'x' }, options: { protect: PROTECT } }],
        });
        expect(batch.status).toBe(422);
        expect(batch.json.error.code).toBe('VALIDATION_ERROR');
        expect(await used()).toBe(before);
      });
    },
  );
}
