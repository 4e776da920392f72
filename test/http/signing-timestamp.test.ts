import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadWithTextField, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { makeIdentity, opensslVerify, pdfsig, startTsa, type LocalTsa } from '../helpers/signing.js';
import { until } from '../helpers/until.js';

// Issue 26, PAdES B-T: with TSA_URL set, the signature carries an RFC 3161 time-stamp token from a
// real local authority (openssl ts -reply behind a loopback HTTP server). An authority that hangs or
// answers garbage fails the render with RENDER_FAILED and a message naming it, within TSA_TIMEOUT_MS,
// and the render is not charged.

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const TSA_TIMEOUT_MS = 1500;

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `time-stamped signatures (B-T) [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let dir: string;
      let tpl: string;
      let field: string;
      let id: ReturnType<typeof makeIdentity>;
      let tsa: LocalTsa;
      let hanging: LocalTsa;
      let garbage: LocalTsa;

      beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-tsa-'));
        id = makeIdentity(dir, 'stamped');
        [tsa, hanging, garbage] = await Promise.all([startTsa(dir), startTsa(dir, 'hang'), startTsa(dir, 'garbage')]);
        s = await startServer(db.name, { env: { TSA_URL: tsa.url, TSA_TIMEOUT_MS: String(TSA_TIMEOUT_MS) } });
        ({ tpl, field } = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf')));
        const up = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: id.p12, password: 'p12-secret' });
        expect(up.status, JSON.stringify(up.json)).toBe(201);
      });
      afterAll(async () => {
        await s?.close();
        await Promise.all([tsa?.close(), hanging?.close(), garbage?.close()]);
        rmSync(dir, { recursive: true, force: true });
      });

      const used = async () => (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used as number;
      const render = (value: string) =>
        api(s, s.b).post('/v1/renders', { templateId: tpl, data: { [field]: value }, options: { sign: true } });

      it('a signature time-stamped by the authority: pdfsig and openssl verify it, openssl ts verifies the token', async () => {
        const before = tsa.answered();
        const res = await render('stamped value');
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        expect(tsa.answered()).toBe(before + 1);
        const bytes = Buffer.from(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());
        const file = path.join(dir, `${db.name}-bt.pdf`);
        writeFileSync(file, bytes);

        const report = pdfsig(file);
        expect(report).toContain('Signature Type: ETSI.CAdES.detached');
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(opensslVerify(dir, bytes, `${db.name}-bt`, id.crt).stderr).toContain('Verification successful');

        // the token is the signature-time-stamp-token unsigned attribute
        const cmsFile = path.join(dir, `${db.name}-bt.cms`);
        const printed = execFileSync('openssl', [
          'cms',
          '-cmsout',
          '-print',
          '-inform',
          'DER',
          '-in',
          cmsFile,
        ]).toString();
        expect(printed).toMatch(/unsignedAttrs:\s*\n\s*object: id-smime-aa-timeStampToken/);

        // openssl ts -verify: the token's imprint is the SHA-256 of this signature's value, and the
        // authority's signature over it holds with the authority's certificate as the only anchor
        const { token, signatureValue } = tokenAndSignatureValue(cmsFile);
        writeFileSync(path.join(dir, `${db.name}.tst`), token);
        writeFileSync(path.join(dir, `${db.name}.sigvalue`), signatureValue);
        // openssl's own check of the token over the bytes in `file`
        const tsVerify = (file: string) =>
          spawnSync(
            'openssl',
            ['ts', '-verify', '-token_in', '-in', path.join(dir, `${db.name}.tst`), '-data', file, '-CAfile', tsa.crt],
            { encoding: 'utf8' },
          );
        const verified = tsVerify(path.join(dir, `${db.name}.sigvalue`));
        expect(verified.stdout + verified.stderr).toContain('Verification: OK');
        // and over any other bytes it fails
        writeFileSync(path.join(dir, `${db.name}.other`), Buffer.concat([signatureValue, Buffer.from([0])]));
        const other = tsVerify(path.join(dir, `${db.name}.other`));
        expect(other.stdout + other.stderr).not.toContain('Verification: OK');

        // one byte changed in the signed range: both verifiers refuse
        const changed = Buffer.from(bytes);
        // the page content may be compressed: then a byte early in the file, well inside the range
        const found = changed.indexOf('stamped value');
        const at = found > 0 ? found : 1000;
        changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
        const changedFile = path.join(dir, `${db.name}-bt-changed.pdf`);
        writeFileSync(changedFile, changed);
        expect(pdfsig(changedFile)).not.toContain('Signature is Valid.');
        expect(opensslVerify(dir, changed, `${db.name}-bt-bad`, id.crt).status).not.toBe(0);
      });

      it('an authority that hangs, answers garbage or is gone: RENDER_FAILED naming it, bounded, not charged', async () => {
        const cases: [string, RegExp][] = [
          [hanging.url, new RegExp(`did not answer within ${TSA_TIMEOUT_MS} ms`)],
          [garbage.url, /not an RFC 3161 time-stamp response/],
          ['http://127.0.0.1:1/tsa', /could not be reached/],
        ];
        for (const [url, message] of cases) {
          s.runtime.config.timestamp.url = url;
          const before = await used();
          const started = Date.now();
          const res = await render('never stamped');
          expect(res.status, JSON.stringify(res.json)).toBe(422);
          expect(res.json.error.code).toBe('RENDER_FAILED');
          expect(res.json.error.message).toMatch(/time-stamp authority \(TSA_URL\)/);
          expect(res.json.error.message).toMatch(message);
          // bounded: the deadline and a margin for the render itself, never the client's patience
          expect(Date.now() - started).toBeLessThan(TSA_TIMEOUT_MS + 10_000);
          expect(await used()).toBe(before);
          const detail = (await api(s, s.b).get(`/v1/renders/${res.json.error.details.renderId}`)).json.data;
          expect(detail).toMatchObject({ status: 'failed' });
        }
        // an async render meets the same authority in the job runner: failed, with the message, not charged
        s.runtime.config.timestamp.url = garbage.url;
        const before = await used();
        const accepted = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'later' },
          options: { sign: true, async: true },
        });
        expect(accepted.status).toBe(202);
        const failed = await until(async () => {
          const d = (await api(s, s.b).get(`/v1/renders/${accepted.json.data.renderId}`)).json.data;
          return d.status === 'pending' ? undefined : d;
        }, 'the async render');
        expect(failed).toMatchObject({ status: 'failed', error: { code: 'RENDER_FAILED' } });
        expect(failed.error.message).toMatch(/time-stamp authority \(TSA_URL\) answered something that is not/);
        expect(await used()).toBe(before);

        s.runtime.config.timestamp.url = tsa.url;
        expect((await render('stamped again')).status).toBe(201);
      });
    },
  );
}

/** The time-stamp token (DER) of a CMS's signer, and the signature value it must cover. */
function tokenAndSignatureValue(cmsFile: string): { token: Buffer; signatureValue: Buffer } {
  // openssl asn1parse walks the DER; the token is the SET value after id-smime-aa-timeStampToken, the
  // signature value the OCTET STRING right before the unsigned attributes [1]
  const lines = execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', cmsFile]).toString().split('\n');
  const der = readFileSync(cmsFile);
  const at = (line: string) => {
    const m = /^\s*(\d+):d=\s*(\d+)\s+hl=\s*(\d+)\s+l=\s*(\d+)/.exec(line)!;
    return { offset: Number(m[1]), depth: Number(m[2]), hl: Number(m[3]), len: Number(m[4]) };
  };
  const oid = lines.findIndex((l) => l.includes('id-smime-aa-timeStampToken'));
  // the attribute's SET, then the token's SEQUENCE inside it
  const token = at(lines[oid + 2]);
  // the signature value: the last OCTET STRING before the attribute's [1] (cont) wrapper
  const before = lines.slice(0, oid).filter((l) => l.includes('OCTET STRING'));
  const sig = at(before.at(-1)!);
  return {
    token: der.subarray(token.offset, token.offset + token.hl + token.len),
    signatureValue: der.subarray(sig.offset + sig.hl, sig.offset + sig.hl + sig.len),
  };
}
