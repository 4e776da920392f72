import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, DATABASES, startServer, uploadForm, uploadWithTextField, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { allSignatureParts, makeIdentity, opensslVerify, pdfsig, startTsa } from '../helpers/signing.js';
import { until } from '../helpers/until.js';

// Issue 26, signed batches: the batch's `sign` signs every item that does not say otherwise, and the
// combined PDF once as a whole (the items' own signatures, which cover other files, are left out of
// it). Checked with pdfsig and openssl on both backends. The combined file is signed without the server
// reading it (issue 27 item 9: the server's memory bounded whatever the batch): its signature is prepared
// where it is built and only the CMS is written into it; every file read of the server's code is watched.

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return { ...fs, readFile: vi.fn(fs.readFile) };
});
/** Files the server's code (and this test's) read whole with fs/promises, since the last call. */
function filesRead(): string[] {
  const read = vi.mocked(readFile).mock.calls.map(([file]) => String(file));
  vi.mocked(readFile).mockClear();
  return read;
}

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `signed batches [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let dir: string;
      let id: ReturnType<typeof makeIdentity>;
      let tpl: string;
      let field: string;
      let sigTpl: string;

      beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-signbatch-'));
        id = makeIdentity(dir, 'batch');
        s = await startServer(db.name, { env: { JOB_POLL_MS: '200' } });
        ({ tpl, field } = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf')));
        // a form with a signature field: its items are signed visibly, and must still combine cleanly
        sigTpl = (
          await api(s, s.b).post('/v1/templates', uploadForm(pdf('pdfbox-acroforms-basic-fields.pdf'), 'b.pdf'))
        ).json.data.id;
        const up = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: id.p12, password: 'p12-secret' });
        expect(up.status, JSON.stringify(up.json)).toBe(201);
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      const completed = (batchId: string) =>
        until(async () => {
          const r = await api(s, s.b).get(`/v1/render-batches/${batchId}`);
          return r.json.data.status === 'completed' ? r.json.data : undefined;
        }, `batch ${batchId}`);
      const download = async (url: string, name: string) => {
        const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
        const file = path.join(dir, name);
        writeFileSync(file, bytes);
        return { bytes, file };
      };

      it('each item signed (unless it says sign: false); the combined PDF signed once, as a whole', async () => {
        filesRead();
        const res = await api(s, s.b).post('/v1/renders/batch', {
          sign: true,
          combine: true,
          items: [
            { templateId: tpl, data: { [field]: 'first item' } },
            { templateId: sigTpl, data: {} },
            { templateId: tpl, data: { [field]: 'left unsigned' }, options: { sign: false } },
          ],
        });
        expect(res.status, JSON.stringify(res.json)).toBe(202);
        const done = await completed(res.json.data.id);
        expect(done).toMatchObject({ signed: true, combineError: null, progress: { completed: 3, failed: 0 } });
        // the engine's combined file (combine-staging.ts names it combined.pdf) was never read back to sign it
        expect(filesRead().filter((f) => path.basename(f) === 'combined.pdf')).toEqual([]);

        const signedItems: boolean[] = [];
        for (const item of done.items as { renderId: string; index: number }[]) {
          const detail = (await api(s, s.b).get(`/v1/renders/${item.renderId}`)).json.data;
          const { file } = await download(detail.downloadUrl, `${db.name}-item-${item.index}.pdf`);
          const report = pdfsig(file);
          signedItems.push(report.includes('Signature is Valid.'));
          expect(detail.signed).toBe(signedItems.at(-1));
        }
        expect(signedItems).toEqual([true, true, false]);

        const { bytes, file } = await download(done.combinedDownloadUrl, `${db.name}-combined.pdf`);
        const report = pdfsig(file);
        // one signature: the combined file's own, over every byte; none of the items' came along
        expect(report.match(/Signature #\d+:/g)).toHaveLength(1);
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(report).toContain('Total document signed');
        expect(allSignatureParts(bytes)).toHaveLength(1);
        expect(opensslVerify(dir, bytes, `${db.name}-combined`, id.crt).stderr).toContain('Verification successful');
        // every item's pages are in it
        const text = execFileSync('pdftotext', [file, '-']).toString();
        expect(text).toContain('first item');
        expect(text).toContain('left unsigned');
        expect(Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file]).toString())![1])).toBeGreaterThanOrEqual(3);

        // one changed byte in the combined file: refused
        const changed = Buffer.from(bytes);
        changed[1000] = changed[1000] === 0x41 ? 0x42 : 0x41;
        writeFileSync(path.join(dir, `${db.name}-combined-changed.pdf`), changed);
        expect(pdfsig(path.join(dir, `${db.name}-combined-changed.pdf`))).not.toContain('Signature is Valid.');
      });

      it('a combined file whose signature fails (time-stamp authority answering garbage): combineError says so', async () => {
        const garbage = await startTsa(dir, 'garbage');
        s.runtime.config.timestamp = { url: garbage.url, timeoutMs: 2000 };
        try {
          const res = await api(s, s.b).post('/v1/renders/batch', {
            sign: true,
            combine: true,
            // the items opt out, so only the combined file meets the authority
            items: [{ templateId: tpl, data: { [field]: 'unsigned item' }, options: { sign: false } }],
          });
          expect(res.status, JSON.stringify(res.json)).toBe(202);
          const done = await completed(res.json.data.id);
          expect(done.progress).toMatchObject({ completed: 1, failed: 0 });
          expect(done.combinedDownloadUrl).toBeNull();
          expect(done.combineError).toMatch(
            /^The combined file could not be signed: the time-stamp authority \(TSA_URL\)/,
          );
        } finally {
          s.runtime.config.timestamp = { timeoutMs: 10_000 };
          await garbage.close();
        }
      });

      it('a batch without combine signs its items only; a bad batch sign is refused whole, nothing reserved', async () => {
        const res = await api(s, s.b).post('/v1/renders/batch', {
          sign: true,
          items: [{ templateId: tpl, data: { [field]: 'alone' } }],
        });
        expect(res.status).toBe(202);
        const done = await completed(res.json.data.id);
        expect(done).toMatchObject({ signed: false, combinedDownloadUrl: null });
        const detail = (await api(s, s.b).get(`/v1/renders/${done.items[0].renderId}`)).json.data;
        expect(detail.signed).toBe(true);

        const before = (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used;
        const unknown = await api(s, s.b).post('/v1/renders/batch', {
          sign: 'crt_nope',
          combine: true,
          items: [{ templateId: tpl, data: {} }],
        });
        expect(unknown.json.error.code).toBe('SIGNING_CERTIFICATE_NOT_FOUND');
        const none = await api(s, s.a).post('/v1/renders/batch', {
          sign: true,
          items: [{ templateId: (await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf'), s.a)).tpl, data: {} }],
        });
        expect(none.status).toBe(422);
        expect(none.json.error.details).toMatchObject({ field: 'sign' });
        expect((await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used).toBe(before);
      });
    },
  );
}
