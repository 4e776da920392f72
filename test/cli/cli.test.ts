import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { makeIdentity, opensslVerify, pdfsig } from '../helpers/signing.js';

const run = promisify(execFile);
const BIN = path.join(repoRoot, 'bin/formcast.js');

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, cwd: repoRoot });
}

describe('formcast CLI', () => {
  it('creates an account with --json, whose key reads the usage from a running server, then shuts down on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-'));
    // one render worker: the shutdown that once ended halfway (database left open) after renders on it
    const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', RENDER_WORKERS: '1' };
    const started = await startServeProcess({ ...env, LOG_LEVEL: 'info' }, { cwd: repoRoot });
    const { proc: server, port } = started;
    try {
      // the hint follows the listen (it needs a database query): wait for it, within a generous bound
      for (let i = 0; i < 300 && !started.output().includes('formcast accounts create'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(started.output()).toContain('formcast accounts create');

      const { stdout } = await cli(['accounts', 'create', '--name', 'Acme', '--plan', 'Pro', '--json'], env);
      const created = JSON.parse(stdout.trim());
      expect(Object.keys(created).sort()).toEqual(['accountId', 'apiKey']);

      const res = await fetch(`http://127.0.0.1:${port}/v1/renders/usage`, {
        headers: { authorization: `Bearer ${created.apiKey}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).data.plan).toBe('Pro');

      await cli(['accounts', 'set-plan', '--account', created.accountId, '--plan', 'Business'], env);
      const keys = JSON.parse((await cli(['keys', 'list', '--account', created.accountId, '--json'], env)).stdout);
      expect(keys).toHaveLength(1);
      const second = JSON.parse((await cli(['keys', 'create', '--account', created.accountId, '--json'], env)).stdout);
      await cli(['keys', 'revoke', '--account', created.accountId, '--key', second.keyId], env);
      const revoked = await fetch(`http://127.0.0.1:${port}/v1/renders/usage`, {
        headers: { authorization: `Bearer ${second.apiKey}` },
      });
      expect(revoked.status).toBe(401);
      const usage = (await (
        await fetch(`http://127.0.0.1:${port}/v1/renders/usage`, {
          headers: { authorization: `Bearer ${created.apiKey}` },
        })
      ).json()) as any;
      expect(usage.data.plan).toBe('Business');

      const corpus = corpusDir();
      if (corpus) {
        const auth = { authorization: `Bearer ${created.apiKey}` };
        const form = new FormData();
        form.set('file', new Blob([readFileSync(path.join(corpus, 'pdfs', 'pdfjs-required-fields.pdf'))]), 'f.pdf');
        const tpl = (await (
          await fetch(`http://127.0.0.1:${port}/v1/templates`, { method: 'POST', headers: auth, body: form })
        ).json()) as any;
        for (let i = 0; i < 3; i++) {
          const r = await fetch(`http://127.0.0.1:${port}/v1/renders`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ templateId: tpl.data.id, data: {} }),
          });
          expect(r.status).toBe(201);
        }
      }
    } finally {
      const exited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    // the whole close ran: requests, workers, then the database
    expect(started.output()).toContain('shut down: requests finished, workers stopped, database closed');
  });

  it('refuses to start with a bad environment variable, naming it', async () => {
    await expect(
      cli(['serve'], { PORT: 'abc', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'formcast-cli-')) }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('PORT') });
  });

  it('refuses an unknown plan', async () => {
    await expect(
      cli(['accounts', 'create', '--name', 'x', '--plan', 'Gold'], {
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'formcast-cli-')),
      }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('Gold') });
  });

  it.skipIf(!corpusDir())('renders a PDF offline', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-'));
    const template = path.join(corpusDir()!, 'pdfs', 'pdfjs-required-fields.pdf');
    writeFileSync(path.join(dir, 'data.json'), JSON.stringify({}));
    const out = path.join(dir, 'out.pdf');
    await cli(['render', template, path.join(dir, 'data.json'), '-o', out, '--no-flatten'], {});
    expect(readFileSync(out).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it.skipIf(!corpusDir())(
    'refuses data offline on a form with scripts (its sandbox started with the template) and writes nothing',
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-'));
      const template = path.join(corpusDir()!, 'pdfs', 'luxembourg-certificat-salaire-160-2019.pdf');
      writeFileSync(path.join(dir, 'data.json'), JSON.stringify({ no_such_field: 'x' }));
      const out = path.join(dir, 'out.pdf');
      await expect(
        cli(['render', template, path.join(dir, 'data.json'), '-o', out, '--strict'], {}),
      ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no_such_field') });
      expect(existsSync(out)).toBe(false);
    },
  );

  it.skipIf(!corpusDir())(
    "signs offline with a local .p12 (--sign): visibly in the form's signature field, verified by pdfsig",
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-sign-'));
      const id = makeIdentity(dir, 'offline');
      const template = path.join(corpusDir()!, 'pdfs', 'pdfbox-acroforms-basic-fields.pdf');
      writeFileSync(path.join(dir, 'data.json'), JSON.stringify({}));
      const out = path.join(dir, 'signed.pdf');
      const done = await cli(['render', template, path.join(dir, 'data.json'), '-o', out, '--sign', id.p12File], {
        FORMCAST_SIGN_PASSWORD: 'p12-secret',
      });
      expect(done.stderr).toContain('signed by CN=offline signer');
      const report = pdfsig(out);
      expect(report).toContain('Signature Validation: Signature is Valid.');
      expect(report).toContain('Signer Certificate Common Name: offline signer');
      expect(opensslVerify(dir, readFileSync(out), 'offline', id.crt).stderr).toContain('Verification successful');
      expect(execFileSync('pdftotext', [out, '-']).toString()).toContain('Digitally signed by offline signer');
      // a wrong password: exit 1, the API's words, no file
      const bad = path.join(dir, 'bad.pdf');
      await expect(
        cli(
          ['render', template, path.join(dir, 'data.json'), '-o', bad, '--sign', id.p12File, '--sign-password', 'no'],
          {},
        ),
      ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('The PKCS#12 password is wrong') });
      expect(existsSync(bad)).toBe(false);
    },
  );
});
