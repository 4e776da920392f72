// `formcast batch --sign cert.p12` run as users run it (the compiled CLI: npm run build first), as the
// server signs a batch (issue 26): each row's PDF signed (visibly in the form's empty signature field),
// and the --combine file signed once as a whole, the rows' own signatures left out of it. Judged by
// poppler's pdfsig and openssl cms -verify (no code shared with ours); one byte changed breaks both.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { hasTool } from '../helpers/pdf-tools.js';
import { makeIdentity, opensslVerify, pdfsig, startTsa, type LocalTsa } from '../helpers/signing.js';

const run = promisify(execFile);
const BIN = path.join(repoRoot, 'bin/formcast.js');
const corpus = corpusDir();
/** a form with an empty signature field: each row's signature shows there */
const FORM = corpus ? path.join(corpus, 'pdfs', 'pdfbox-acroforms-basic-fields.pdf') : '';
const tools = ['pdfsig', 'openssl', 'pdftotext', 'qpdf'].every(hasTool);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function batch(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'batch', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe.skipIf(!corpus || !tools)('formcast batch --sign', () => {
  let dir: string;
  let id: ReturnType<typeof makeIdentity>;
  let tsa: LocalTsa;
  let data: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'formcast-cli-signbatch-'));
    id = makeIdentity(dir, 'rows');
    tsa = await startTsa(dir);
    data = path.join(dir, 'rows.jsonl');
    // row 2 fails validation (a number for a text field) and gets no file
    fs.writeFileSync(
      data,
      ['{"TextField": "ROW ONE"}', '{"TextField": 42}', '{"TextField": "ROW THREE"}', '{}'].join('\n'),
    );
  });
  afterAll(async () => {
    await tsa?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** pdfsig's and openssl's verdicts on a file's signatures */
  const verdict = (file: string, name: string) => {
    const report = pdfsig(file);
    return {
      report,
      signatures: report.match(/Signature Validation:/g)?.length ?? 0,
      valid: report.includes('Signature Validation: Signature is Valid.'),
      openssl: opensslVerify(dir, fs.readFileSync(file), name, id.crt).stderr.includes('Verification successful'),
    };
  };

  for (const workers of ['0', '1']) {
    it(`signs every row and the combined file once as a whole (--workers ${workers}${workers === '1' ? ', time-stamped' : ''})`, async () => {
      const out = path.join(dir, `out-${workers}`);
      const combined = path.join(dir, `all-${workers}.pdf`);
      const stamp = workers === '1' ? ['--tsa', tsa.url] : [];
      const answered = tsa.answered();
      const r = await batch(
        [FORM, data, '-o', out, '--combine', combined, '--workers', workers, '--sign', id.p12File, ...stamp, '--json'],
        { FORMCAST_SIGN_PASSWORD: 'p12-secret' },
      );
      expect(r.code, r.stderr).toBe(1); // row 2 failed validation, the others are written
      expect(r.stderr).toContain('signed by CN=rows signer');
      const summary = JSON.parse(r.stdout);
      expect(summary, r.stderr).toMatchObject({ rows: 4, rendered: 3, failed: 1, combined });
      expect(fs.readdirSync(out).sort()).toEqual(['0001.pdf', '0003.pdf', '0004.pdf']);

      for (const name of ['0001.pdf', '0003.pdf', '0004.pdf']) {
        const file = path.join(out, name);
        const v = verdict(file, `${workers}-${name}`);
        expect(v.signatures, v.report).toBe(1);
        expect(v.valid, v.report).toBe(true);
        expect(v.openssl).toBe(true);
        expect(v.report).toContain('Signer Certificate Common Name: rows signer');
        // visible, in the form's own signature field
        expect(execFileSync('pdftotext', [file, '-']).toString()).toContain('Digitally signed by rows signer');
      }
      const text = execFileSync('pdftotext', [path.join(out, '0003.pdf'), '-']).toString();
      expect(text).toContain('ROW THREE');

      const c = verdict(combined, `${workers}-combined`);
      expect(c.signatures, c.report).toBe(1); // its own; the rows' were left out
      expect(c.valid, c.report).toBe(true);
      expect(c.report).toContain('Total document signed');
      expect(c.report).toContain('- Signature Field Name: Signature1\n');
      expect(c.openssl).toBe(true);
      expect(execFileSync('qpdf', ['--show-npages', combined], { encoding: 'utf8' }).trim()).toBe('3');
      const all = execFileSync('pdftotext', [combined, '-']).toString();
      expect(all).toContain('ROW ONE');
      expect(all).toContain('ROW THREE');
      // B-T: one token per row and one for the combined file
      expect(tsa.answered() - answered).toBe(workers === '1' ? 4 : 0);

      const bytes = fs.readFileSync(combined);
      const changed = Buffer.from(bytes);
      const at = bytes.indexOf('ROW ONE') > 0 ? bytes.indexOf('ROW ONE') : 1000;
      changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
      const changedFile = path.join(dir, `all-${workers}-changed.pdf`);
      fs.writeFileSync(changedFile, changed);
      const broken = verdict(changedFile, `${workers}-changed`);
      expect(broken.valid).toBe(false);
      expect(broken.openssl).toBe(false);
    });
  }

  it('refuses a wrong password or a certificate without its key before writing anything; help names --sign', async () => {
    const out = path.join(dir, 'never');
    const wrong = await batch([FORM, data, '-o', out, '--sign', id.p12File, '--sign-password', 'no']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('The PKCS#12 password is wrong');
    const noKey = path.join(dir, 'nokey.p12');
    fs.writeFileSync(noKey, Buffer.from(id.noKey, 'base64'));
    const keyless = await batch([FORM, data, '-o', out, '--sign', noKey], { FORMCAST_SIGN_PASSWORD: 'p12-secret' });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(/no private key/);
    const tsaUrl = await batch([FORM, data, '-o', out, '--sign', id.p12File, '--tsa', 'ftp://x'], {
      FORMCAST_SIGN_PASSWORD: 'p12-secret',
    });
    expect(tsaUrl.code).toBe(1);
    expect(tsaUrl.stderr).toContain('--tsa must be an http(s) URL');
    expect(fs.existsSync(out)).toBe(false);

    const help = await run(process.execPath, [BIN, 'batch', '--help'], { cwd: repoRoot });
    expect(help.stdout).toMatch(/--sign CERT\.p12 \[--sign-password PW\] \[--tsa URL\]/);
  });
});
