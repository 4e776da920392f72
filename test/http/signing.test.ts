import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  DATABASES,
  startServer,
  uploadWithTextField,
  TestClock,
  uploadForm,
  type TestServer,
} from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { until } from '../helpers/until.js';
import { makeIdentity, opensslVerify as verifyWith, pdfsig } from '../helpers/signing.js';

// Issue 26, signing, on both backends: certificates made here with openssl (no key comes from
// elsewhere), uploaded as PKCS#12, renders signed (PAdES B-B) and checked by two verifiers that share
// no code with ours: poppler's pdfsig, and openssl cms -verify over the byte range pdfsig names.

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const DAY = 86_400_000;

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `signed outputs over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let clock: TestClock;
      let dir: string;
      let tpl: string;
      let field: string;
      let id: ReturnType<typeof makeIdentity>;

      beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-sign-'));
        id = makeIdentity(dir, 'acme');
        clock = new TestClock();
        s = await startServer(db.name, { overrides: { clock } });
        ({ tpl, field } = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf')));
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      const upload = (body: Record<string, unknown>, tenant = s.b) =>
        api(s, tenant).post('/v1/signing-certificates', body);
      const used = async () => (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used as number;
      const opensslVerify = (bytes: Buffer, name: string) => verifyWith(dir, bytes, name, id.crt);

      it('refuses what is not a usable certificate, each with a clear VALIDATION_ERROR, storing nothing', async () => {
        const cases: [Record<string, unknown>, RegExp][] = [
          [{ pkcs12: id.p12, password: 'wrong' }, /password is wrong/],
          [{ pkcs12: id.noKey, password: 'p12-secret' }, /no private key/],
          [
            { pkcs12: Buffer.from('not a certificate at all').toString('base64'), password: 'x' },
            /not a readable PKCS#12/,
          ],
          [{ pkcs12: '!!!', password: 'x' }, /base64/],
        ];
        for (const [body, message] of cases) {
          const res = await upload(body);
          expect(res.status, JSON.stringify(res.json)).toBe(422);
          expect(res.json.error.code).toBe('VALIDATION_ERROR');
          expect(res.json.error.message).toMatch(message);
        }
        // a 10 MB "certificate": over the JSON body limit before any parsing
        const big = await upload({ pkcs12: 'A'.repeat(10 * 1024 * 1024), password: 'x' });
        expect(big.status).toBe(413);
        // expired, not yet valid: the server's clock moved past and before the validity
        clock.set(new Date(Date.now() + 40 * DAY));
        expect((await upload({ pkcs12: id.p12, password: 'p12-secret' })).json.error.message).toMatch(/expired/);
        clock.set(new Date(Date.now() - 2 * DAY));
        expect((await upload({ pkcs12: id.p12, password: 'p12-secret' })).json.error.message).toMatch(/not valid yet/);
        clock.set(new Date());
        expect((await api(s, s.b).get('/v1/signing-certificates')).json.data).toEqual([]);
      });

      it('takes a certificate made this second where our clock runs a little behind its maker, not one a minute ahead', async () => {
        // X.509 times are whole seconds and our clock is the database's read across a round trip: a
        // certificate made a moment ago can start up to a second ahead of it (decisions.md: a minute's leeway)
        const start = new Date(
          execFileSync('openssl', ['x509', '-in', id.crt, '-noout', '-startdate']).toString().trim().split('=')[1],
        );
        try {
          clock.set(new Date(start.getTime() - 90_000));
          const early = await upload({ pkcs12: id.p12, password: 'p12-secret' });
          expect(early.status).toBe(422);
          expect(early.json.error.message).toMatch(/not valid yet/);
          clock.set(new Date(start.getTime() - 30_000));
          const up = await upload({ pkcs12: id.p12, password: 'p12-secret' });
          expect(up.status, JSON.stringify(up.json)).toBe(201);
          // and it signs on that clock
          const res = await api(s, s.b).post('/v1/renders', {
            templateId: tpl,
            data: { [field]: 'value' },
            options: { sign: up.json.data.id },
          });
          expect(res.status, JSON.stringify(res.json)).toBe(201);
          // signed at a time before the certificate's start; verified now, after it
          const file = path.join(dir, `${db.name}-fresh.pdf`);
          writeFileSync(file, Buffer.from(await (await fetch(res.json.data.downloadUrl)).arrayBuffer()));
          expect(pdfsig(file)).toContain('Signature Validation: Signature is Valid.');
          expect((await api(s, s.b).delete(`/v1/signing-certificates/${up.json.data.id}`)).status).toBe(204);
        } finally {
          clock.set(new Date());
        }
      });

      it('stores one: listed with subject, issuer, validity and fingerprint; the key sealed, never returned', async () => {
        const res = await upload({ name: 'Acme seal', pkcs12: id.p12, password: 'p12-secret' });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const fp = execFileSync('openssl', ['x509', '-in', id.crt, '-noout', '-fingerprint', '-sha256']).toString();
        expect(res.json.data).toMatchObject({
          name: 'Acme seal',
          subject: expect.stringContaining('CN=acme signer'),
          issuer: expect.stringContaining('CN=acme signer'),
          isDefault: true,
          fingerprint: fp.split('=')[1].trim().replace(/:/g, '').toLowerCase(),
        });
        const list = (await api(s, s.b).get('/v1/signing-certificates')).json;
        expect(list.data).toHaveLength(1);
        expect(JSON.stringify(list)).not.toMatch(/PRIVATE KEY|p12-secret/);
        const rows = await s.runtime.db.selectFrom('signing_certificates').selectAll().execute();
        expect(JSON.stringify(rows)).not.toMatch(/PRIVATE KEY|p12-secret/);
        expect(JSON.stringify(rows)).not.toContain(id.keyPem.split('\n')[1]);
        // the other tenant sees none
        expect((await api(s, s.a).get('/v1/signing-certificates')).json.data).toEqual([]);
      });

      it('options.sign: a PAdES signature as the last revision that pdfsig and openssl both verify; one changed byte and both refuse', async () => {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'signed value' },
          options: { sign: true },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const bytes = Buffer.from(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());
        const file = path.join(dir, `${db.name}-signed.pdf`);
        writeFileSync(file, bytes);

        const report = pdfsig(file);
        expect(report).toContain('Signature Type: ETSI.CAdES.detached');
        expect(report).toContain('Signing Hash Algorithm: SHA-256');
        expect(report).toContain('Signer Certificate Common Name: acme signer');
        expect(report).toContain('Total document signed');
        expect(report).toContain('Signature Validation: Signature is Valid.');
        const ok = opensslVerify(bytes, `${db.name}-ok`);
        expect(ok.stderr).toContain('Verification successful');
        // PAdES B-B: signing-certificate-v2 signed, no signing-time attribute (the time is in /M)
        const printed = execFileSync('openssl', [
          'cms',
          '-cmsout',
          '-print',
          '-inform',
          'DER',
          '-in',
          path.join(dir, `${db.name}-ok.cms`),
        ]).toString();
        expect(printed).toContain('id-smime-aa-signingCertificateV2');
        expect(printed).not.toContain('signingTime');
        expect(bytes.toString('latin1')).toMatch(/\/Reason <[0-9A-Fa-f]+>/);
        expect(bytes.toString('latin1')).toMatch(/\/M \(D:\d{14}/);

        // the filled value is in the signed revision
        expect(execFileSync('pdftotext', [file, '-']).toString()).toContain('signed value');
        expect((await api(s, s.b).get(`/v1/renders/${res.json.data.renderId}`)).json.data).toMatchObject({
          signed: true,
          protected: false,
        });

        // one byte changed inside the signed range (in the page content, before the signature)
        const changed = Buffer.from(bytes);
        const at = changed.indexOf('signed value');
        const where = at > 0 ? at : 1000;
        changed[where] = changed[where] === 0x41 ? 0x42 : 0x41;
        const changedFile = path.join(dir, `${db.name}-changed.pdf`);
        writeFileSync(changedFile, changed);
        expect(pdfsig(changedFile)).not.toContain('Signature is Valid.');
        expect(opensslVerify(changed, `${db.name}-bad`).status).not.toBe(0);
      });

      it('an EC (P-256) certificate signs too: ECDSA with SHA-256, verified by pdfsig and openssl', async () => {
        const ec = makeIdentity(dir, 'ecdsa', 30, 'ec');
        clock.set(new Date(Date.now() + 60_000)); // the test clock stands still; the certificate is new
        const up = await upload({ name: 'EC seal', pkcs12: ec.p12, password: 'p12-secret' });
        expect(up.status, JSON.stringify(up.json)).toBe(201);
        expect(up.json.data).toMatchObject({ isDefault: false, subject: expect.stringContaining('CN=ecdsa signer') });
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'ec value' },
          options: { sign: up.json.data.id },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const bytes = Buffer.from(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());
        const file = path.join(dir, `${db.name}-ec.pdf`);
        writeFileSync(file, bytes);
        const report = pdfsig(file);
        expect(report).toContain('Signer Certificate Common Name: ecdsa signer');
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(verifyWith(dir, bytes, `${db.name}-ec`, ec.crt).stderr).toContain('Verification successful');
        const printed = execFileSync('openssl', [
          'cms',
          '-cmsout',
          '-print',
          '-inform',
          'DER',
          '-in',
          path.join(dir, `${db.name}-ec.cms`),
        ]).toString();
        expect(printed).toContain('ecdsa-with-SHA256');
        expect((await api(s, s.b).delete(`/v1/signing-certificates/${up.json.data.id}`)).status).toBe(204);
      });

      it("refuses sign with protect, an unknown or another tenant's certificate, or none; not charged", async () => {
        const before = await used();
        const certId = (await api(s, s.b).get('/v1/signing-certificates')).json.data[0].id;
        const both = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'x' },
          options: {
            sign: true,
            protect: {
              ownerPassword: 'o',
              permissions: { print: true, copy: true, modify: false, annotate: false, fillForms: false },
            },
          },
        });
        expect(both.status).toBe(422);
        expect(both.json.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          message: expect.stringMatching(/cannot be combined/),
        });
        const unknown = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'x' },
          options: { sign: 'crt_nope' },
        });
        expect(unknown.json.error.code).toBe('SIGNING_CERTIFICATE_NOT_FOUND');
        const aTpl = (await api(s, s.a).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'req.pdf')))
          .json.data.id;
        const other = await api(s, s.a).post('/v1/renders', { templateId: aTpl, data: {}, options: { sign: certId } });
        expect(other.json.error.code).toBe('SIGNING_CERTIFICATE_NOT_FOUND');
        const none = await api(s, s.a).post('/v1/renders', { templateId: aTpl, data: {}, options: { sign: true } });
        expect(none.json.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          message: expect.stringMatching(/no signing certificate/),
        });
        expect(await used()).toBe(before);
      });

      it('an async render is signed too; a deleted certificate signs no more', async () => {
        const certId = (await api(s, s.b).get('/v1/signing-certificates')).json.data[0].id;
        const accepted = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'later' },
          options: { sign: certId, async: true },
        });
        expect(accepted.status).toBe(202);
        const detail = await until(async () => {
          const d = (await api(s, s.b).get(`/v1/renders/${accepted.json.data.renderId}`)).json.data;
          return d.status === 'pending' ? undefined : (d as { status: string; downloadUrl: string; signed: boolean });
        }, 'the async signed render');
        expect(detail).toMatchObject({ status: 'completed', signed: true });
        const file = path.join(dir, `${db.name}-async.pdf`);
        writeFileSync(file, Buffer.from(await (await fetch(detail.downloadUrl)).arrayBuffer()));
        expect(pdfsig(file)).toContain('Signature is Valid.');

        expect((await api(s, s.b).delete(`/v1/signing-certificates/${certId}`)).status).toBe(204);
        expect((await api(s, s.b).delete(`/v1/signing-certificates/${certId}`)).json.error.code).toBe(
          'SIGNING_CERTIFICATE_NOT_FOUND',
        );
        const after = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'x' },
          options: { sign: certId },
        });
        expect(after.json.error.code).toBe('SIGNING_CERTIFICATE_NOT_FOUND');
      });
    },
  );
}
