import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/bootstrap.js';
import { createLogger } from '../../src/logger.js';
import { api, DATABASES, startServer, TestClock, uploadWithTextField, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { until } from '../helpers/until.js';
import { makeIdentity, opensslVerify, pdfsig } from '../helpers/signing.js';

// Issue 26, the operator's certificate (SIGNING_P12_FILE) for every account, on both backends: it signs
// `options.sign: true` of an account without a default of its own (pdfsig and openssl cms both verify, the
// signer is the operator's), an account's own certificate comes first, every account sees it listed
// read-only and never another account's; a bad one stops the start with a message naming the variable.

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
const DAY = 86_400_000;
const run = promisify(execFile);

const fingerprintOf = (crt: string) =>
  execFileSync('openssl', ['x509', '-in', crt, '-noout', '-fingerprint', '-sha256'])
    .toString()
    .split('=')[1]
    .trim()
    .replace(/:/g, '')
    .toLowerCase();

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `the operator's signing certificate [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let dir: string;
      let operator: ReturnType<typeof makeIdentity>;
      let own: ReturnType<typeof makeIdentity>;
      let second: ReturnType<typeof makeIdentity>;
      let tplA: { tpl: string; field: string };
      let tplB: { tpl: string; field: string };
      /** every log line of the server, at trace level */
      const lines: string[] = [];
      // a minute ahead: certificates made this second are valid whatever the rounding
      const clock = new TestClock(Date.now() + 60_000);

      beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-opcert-'));
        operator = makeIdentity(dir, 'operator');
        own = makeIdentity(dir, 'own');
        second = makeIdentity(dir, 'second');
        s = await startServer(db.name, {
          env: { SIGNING_P12_FILE: operator.p12File, SIGNING_P12_PASSWORD: 'p12-secret', LOG_LEVEL: 'trace' },
          overrides: {
            clock,
            log: createLogger('trace', { write: (line: string) => void lines.push(line) }),
          },
        });
        tplA = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf'), s.a);
        tplB = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf'), s.b);
      });
      afterAll(async () => {
        await s?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      /** The file of a completed render, written to dir/name.pdf, with pdfsig's report. */
      const download = async (url: string, name: string) => {
        const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
        const file = path.join(dir, `${db.name}-${name}.pdf`);
        writeFileSync(file, bytes);
        return { bytes, report: pdfsig(file) };
      };
      const render = (tenant: typeof s.a, t: { tpl: string; field: string }, sign: unknown, extra = {}) =>
        api(s, tenant).post('/v1/renders', {
          templateId: t.tpl,
          data: { [t.field]: 'operator value' },
          options: { sign, ...extra },
        });

      it("lists the operator's certificate to every account, read-only: DELETE answers CONFLICT", async () => {
        for (const tenant of [s.a, s.b]) {
          const list = (await api(s, tenant).get('/v1/signing-certificates')).json.data;
          expect(list).toEqual([
            expect.objectContaining({
              id: 'crt_operator',
              owner: 'operator',
              isDefault: true,
              subject: expect.stringContaining('CN=operator signer'),
              issuer: expect.stringContaining('CN=operator signer'),
              fingerprint: fingerprintOf(operator.crt),
              notBefore: expect.any(String),
              notAfter: expect.any(String),
            }),
          ]);
          expect(JSON.stringify(list)).not.toMatch(/PRIVATE KEY|p12-secret/);
          const del = await api(s, tenant).delete('/v1/signing-certificates/crt_operator');
          expect(del.status).toBe(409);
          expect(del.json.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/operator/) });
        }
        expect((await api(s, s.a).get('/v1/signing-certificates')).json.data).toHaveLength(1);
        // nothing of the operator's is written to the database
        expect(await s.runtime.db.selectFrom('signing_certificates').selectAll().execute()).toEqual([]);
      });

      it('signs options.sign: true of an account without its own: pdfsig and openssl verify, the signer is the operator', async () => {
        const res = await render(s.a, tplA, true);
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const { bytes, report } = await download(res.json.data.downloadUrl, 'operator');
        expect(report).toContain('Signer Certificate Common Name: operator signer');
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(report).toContain('Total document signed');
        expect(opensslVerify(dir, bytes, `${db.name}-operator`, operator.crt).stderr).toContain(
          'Verification successful',
        );
        // one changed byte inside the signed range and both refuse
        const changed = Buffer.from(bytes);
        const at = changed.indexOf('operator value');
        const where = at > 0 ? at : 1000;
        changed[where] = changed[where] === 0x41 ? 0x42 : 0x41;
        const changedFile = path.join(dir, `${db.name}-operator-changed.pdf`);
        writeFileSync(changedFile, changed);
        expect(pdfsig(changedFile)).not.toContain('Signature is Valid.');
        expect(opensslVerify(dir, changed, `${db.name}-operator-bad`, operator.crt).status).not.toBe(0);
        expect((await api(s, s.a).get(`/v1/renders/${res.json.data.renderId}`)).json.data).toMatchObject({
          signed: true,
        });
      });

      it("an async render of such an account is signed with the operator's too", async () => {
        const accepted = await render(s.a, tplA, true, { async: true });
        expect(accepted.status, JSON.stringify(accepted.json)).toBe(202);
        const detail = await until(async () => {
          const d = (await api(s, s.a).get(`/v1/renders/${accepted.json.data.renderId}`)).json.data;
          return d.status === 'pending' ? undefined : (d as { status: string; downloadUrl: string });
        }, 'the async render signed by the operator');
        expect(detail.status).toBe('completed');
        const { report } = await download(detail.downloadUrl, 'operator-async');
        expect(report).toContain('Signer Certificate Common Name: operator signer');
        expect(report).toContain('Signature Validation: Signature is Valid.');
      });

      it("a signed batch of such an account: items and the combined file signed with the operator's", async () => {
        const res = await api(s, s.a).post('/v1/renders/batch', {
          sign: true,
          combine: true,
          items: [
            { templateId: tplA.tpl, data: { [tplA.field]: 'first' } },
            { templateId: tplA.tpl, data: { [tplA.field]: 'second' } },
          ],
        });
        expect(res.status, JSON.stringify(res.json)).toBe(202);
        const done = await until(async () => {
          const r = (await api(s, s.a).get(`/v1/render-batches/${res.json.data.id}`)).json.data;
          return r.status === 'completed' ? r : undefined;
        }, 'the batch signed by the operator');
        expect(done).toMatchObject({ signed: true, combineError: null, progress: { completed: 2, failed: 0 } });
        const item = (await api(s, s.a).get(`/v1/renders/${done.items[0].renderId}`)).json.data;
        expect((await download(item.downloadUrl, 'batch-item')).report).toContain(
          'Signer Certificate Common Name: operator signer',
        );
        const combined = await download(done.combinedDownloadUrl, 'batch-combined');
        expect(combined.report).toContain('Signer Certificate Common Name: operator signer');
        expect(combined.report).toContain('Signature Validation: Signature is Valid.');
        expect(opensslVerify(dir, combined.bytes, `${db.name}-batch`, operator.crt).stderr).toContain(
          'Verification successful',
        );
      });

      it('an account with its own signs with its own; crt_operator still names the operator; no tenant sees another one', async () => {
        const up = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: own.p12, password: 'p12-secret' });
        expect(up.status, JSON.stringify(up.json)).toBe(201);
        expect(up.json.data).toMatchObject({ owner: 'account', isDefault: true });
        const listB = (await api(s, s.b).get('/v1/signing-certificates')).json.data;
        expect(listB.map((c: { id: string; isDefault: boolean }) => [c.id, c.isDefault])).toEqual([
          [up.json.data.id, true],
          ['crt_operator', false],
        ]);
        // the other tenant: the operator's only, still its default
        const listA = (await api(s, s.a).get('/v1/signing-certificates')).json.data;
        expect(listA.map((c: { id: string; isDefault: boolean }) => [c.id, c.isDefault])).toEqual([
          ['crt_operator', true],
        ]);

        const mine = await render(s.b, tplB, true);
        expect(mine.status, JSON.stringify(mine.json)).toBe(201);
        const signedMine = await download(mine.json.data.downloadUrl, 'own');
        expect(signedMine.report).toContain('Signer Certificate Common Name: own signer');
        expect(signedMine.report).toContain('Signature Validation: Signature is Valid.');
        expect(opensslVerify(dir, signedMine.bytes, `${db.name}-own`, own.crt).stderr).toContain(
          'Verification successful',
        );

        const named = await render(s.b, tplB, 'crt_operator');
        expect(named.status, JSON.stringify(named.json)).toBe(201);
        expect((await download(named.json.data.downloadUrl, 'named')).report).toContain(
          'Signer Certificate Common Name: operator signer',
        );

        // another account's id is not found, never replaced by the operator's
        const foreign = await render(s.a, tplA, up.json.data.id);
        expect(foreign.status).toBe(404);
        expect(foreign.json.error.code).toBe('SIGNING_CERTIFICATE_NOT_FOUND');
        expect((await api(s, s.a).delete(`/v1/signing-certificates/${up.json.data.id}`)).status).toBe(404);
      });

      it("deleting the default makes the newest left the default; with none left, the operator's signs again", async () => {
        const up = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: second.p12, password: 'p12-secret' });
        expect(up.json.data.isDefault).toBe(false);
        const first = (await api(s, s.b).get('/v1/signing-certificates')).json.data.find(
          (c: { isDefault: boolean }) => c.isDefault,
        );
        expect((await api(s, s.b).delete(`/v1/signing-certificates/${first.id}`)).status).toBe(204);
        const list = (await api(s, s.b).get('/v1/signing-certificates')).json.data;
        expect(list.map((c: { id: string; isDefault: boolean }) => [c.id, c.isDefault])).toEqual([
          [up.json.data.id, true],
          ['crt_operator', false],
        ]);
        expect((await api(s, s.b).delete(`/v1/signing-certificates/${up.json.data.id}`)).status).toBe(204);
        const res = await render(s.b, tplB, true);
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        expect((await download(res.json.data.downloadUrl, 'back-to-operator')).report).toContain(
          'Signer Certificate Common Name: operator signer',
        );
      });

      it("once the operator's has expired, sign: true of an account without its own is refused, saying so; not charged", async () => {
        const used = async () => (await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used as number;
        clock.set(new Date(Date.now() + 31 * DAY));
        try {
          const before = await used(); // in the month the clock is now in

          const res = await render(s.a, tplA, true);
          expect(res.status).toBe(422);
          expect(res.json.error).toMatchObject({
            code: 'VALIDATION_ERROR',
            message: expect.stringMatching(/operator's signing certificate \(crt_operator\) is not valid today.*renew/),
          });
          // still listed, with the validity that says why
          const listed = (await api(s, s.a).get('/v1/signing-certificates')).json.data;
          expect(listed.map((c: { id: string }) => c.id)).toEqual(['crt_operator']);
          expect(await used()).toBe(before);
        } finally {
          clock.set(new Date(Date.now() + 60_000));
        }
      });

      it("logs which certificate it loaded, never its password or key (trace level, after every test's requests)", () => {
        const text = lines.join('');
        // a 30-day certificate: inside the 30 days' notice, so announced as a warning to renew it
        expect(text).toContain("the operator's signing certificate (SIGNING_P12_FILE) expires in 29 days: renew it");
        expect(text).toContain(fingerprintOf(operator.crt));
        expect(text).not.toContain('p12-secret');
        expect(text).not.toMatch(/PRIVATE KEY/);
        expect(text).not.toContain(operator.keyPem.split('\n')[1]);
      });
    },
  );
}

describe('a bad operator certificate stops the start, naming the variable, never the password', () => {
  let dir: string;
  let id: ReturnType<typeof makeIdentity>;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'formcast-opcert-bad-'));
    id = makeIdentity(dir, 'bad');
    writeFileSync(path.join(dir, 'nokey.p12'), Buffer.from(id.noKey, 'base64'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** createRuntime's refusal (a ConfigError), and that it left nothing behind in DATA_DIR. */
  const refusal = async (env: Record<string, string>, clock?: TestClock) => {
    const dataDir = path.join(dir, `data-${Math.random().toString(36).slice(2)}`);
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RENDER_WORKERS: '0', ...env });
    const err = await createRuntime(config, clock ? { clock } : {}).then(
      async (runtime) => {
        await runtime.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    // refused before the database or the files folder were opened
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
    return (err as ConfigError).message;
  };

  it('a wrong password: SIGNING_P12_PASSWORD named, the password not shown', async () => {
    const message = await refusal({ SIGNING_P12_FILE: id.p12File, SIGNING_P12_PASSWORD: 'not-the-password' });
    expect(message).toMatch(/SIGNING_P12_PASSWORD does not open SIGNING_P12_FILE .*password is wrong/);
    expect(message).not.toContain('not-the-password');
  });

  it('no private key, an unreadable file, a file that is no PKCS#12', async () => {
    expect(
      await refusal({ SIGNING_P12_FILE: path.join(dir, 'nokey.p12'), SIGNING_P12_PASSWORD: 'p12-secret' }),
    ).toMatch(/SIGNING_P12_FILE .*no private key/);
    expect(await refusal({ SIGNING_P12_FILE: path.join(dir, 'missing.p12') })).toMatch(
      /SIGNING_P12_FILE .*missing\.p12.* cannot be read/,
    );
    expect(await refusal({ SIGNING_P12_FILE: id.crt, SIGNING_P12_PASSWORD: 'p12-secret' })).toMatch(
      /SIGNING_P12_FILE .*not a readable PKCS#12/,
    );
  });

  it('expired, or not valid yet', async () => {
    const env = { SIGNING_P12_FILE: id.p12File, SIGNING_P12_PASSWORD: 'p12-secret' };
    expect(await refusal(env, new TestClock(Date.now() + 40 * DAY))).toMatch(/SIGNING_P12_FILE .*expired on/);
    expect(await refusal(env, new TestClock(Date.now() - 2 * DAY))).toMatch(/SIGNING_P12_FILE .*not valid yet/);
  });

  it('a password without a file is a configuration error', () => {
    expect(() => loadConfig({ SIGNING_P12_PASSWORD: 'p12-secret' })).toThrow(
      /SIGNING_P12_PASSWORD is set but SIGNING_P12_FILE is not/,
    );
  });

  it('`formcast serve` exits 1 with the message and without the password', async () => {
    const bin = path.resolve('bin/formcast.js');
    const failed = await run(process.execPath, [bin, 'serve'], {
      env: {
        ...process.env,
        DATA_DIR: path.join(dir, 'serve'),
        PORT: '0',
        HOST: '127.0.0.1',
        RENDER_WORKERS: '1',
        SIGNING_P12_FILE: id.p12File,
        SIGNING_P12_PASSWORD: 'serve-wrong-password',
      },
      timeout: 60_000,
    }).then(
      () => undefined,
      (e: { code?: number; stderr?: string; stdout?: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/SIGNING_P12_PASSWORD does not open SIGNING_P12_FILE/);
    expect(`${failed?.stderr}${failed?.stdout}`).not.toContain('serve-wrong-password');
  });
});
