// formcast types, run as users run it (the compiled CLI: `npm run build` first), on corpus forms:
// the output compiles under tsc --strict, accepts valid data and refuses bad data; --check is a CI gate.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const BIN = path.join(repoRoot, 'bin/formcast.js');
const TSC = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
const corpus = corpusDir();
const pdf = (name: string) => path.join(corpus!, 'pdfs', name);

/** Runs the CLI; resolves with its exit code and output whatever the code. */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      cwd: repoRoot,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** tsc --noEmit --strict on one file; its exit code and diagnostics. */
async function tsc(files: string[]) {
  try {
    await run(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', ...files]);
    return { code: 0, out: '' };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

// Generous time limits: each test starts several Node processes (and tsc) on a shared, busy machine.
describe.skipIf(!corpus)('formcast types', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'formcast-types-'));

  it('writes types that compile under --strict, accept valid data and refuse bad data', async () => {
    const out = path.join(dir, 'multiselect.ts');
    const res = await cli(['types', pdf('pdfjs-form-example-multiselect.pdf'), '-o', out, '--name', 'JobForm']);
    expect(res.code, res.stderr).toBe(0);
    const code = readFileSync(out, 'utf8');
    expect(code).toContain('export interface JobForm {');
    expect(code).toContain('First name'); // the field's tooltip, as its doc comment

    const write = (body: string) => {
      const file = path.join(dir, `use-${Math.random().toString(36).slice(2)}.ts`);
      writeFileSync(file, `import type { JobForm } from './multiselect.js';\n${body}\n`);
      return file;
    };
    const valid = await tsc([
      write(
        `export const ok: JobForm = { firstName: 'Ada', country: 'any text', typeScript: true, jobDescription: 'UX Designer', databases: ['oracle', 'db2'], lastName: null };`,
      ),
    ]);
    expect(valid, valid.out).toEqual({ code: 0, out: '' });
    const bad = [
      `export const bad: JobForm = { jobDescription: 'Chef' };`, // not an option
      `export const bad: JobForm = { typeScript: 'yes' };`, // wrong type
      `export const bad: JobForm = { noSuchField: 'x' };`, // unknown key
      `export const bad: JobForm = { databases: ['oracle', 'mongo'] };`, // not an option, in an array
    ].map((body) => ({ body, file: write(body) }));
    // one tsc run for all of them (tsc is slow to start): each file must have its own error
    const r = await tsc(bad.map((b) => b.file));
    expect(r.code).not.toBe(0);
    for (const b of bad) expect(r.out, b.body).toMatch(new RegExp(`${path.basename(b.file)}\\(\\d+,\\d+\\): error TS`));
  });

  it('makes required fields required in the interface', async () => {
    const out = path.join(dir, 'required.ts');
    expect((await cli(['types', pdf('pdfjs-required-fields.pdf'), '-o', out, '--name', 'Req'])).code).toBe(0);
    const file = path.join(dir, 'use-required.ts');
    writeFileSync(file, `import type { Req } from './required.js';\nexport const bad: Req = {};\n`);
    const r = await tsc([file]);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/is missing|missing the following properties/);
  });

  it('prints to stdout without -o, and --check passes, then fails once the form changes', async () => {
    const form = path.join(dir, 'form.pdf');
    copyFileSync(pdf('pdfjs-radio-opt-demo.pdf'), form);
    const printed = await cli(['types', form]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('export interface FormData {');

    const out = path.join(dir, 'form.ts');
    expect((await cli(['types', form, '-o', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(printed.stdout);
    const same = await cli(['types', form, '-o', out, '--check']);
    expect(same.code, same.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(printed.stdout); // --check never writes

    copyFileSync(pdf('pdfjs-required-fields.pdf'), form);
    const changed = await cli(['types', form, '-o', out, '--check']);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('no longer matches');
    expect(changed.stderr).toContain(`formcast types ${form} -o ${out}`);
    expect(readFileSync(out, 'utf8')).toBe(printed.stdout);

    const missing = await cli(['types', form, '-o', path.join(dir, 'none.ts'), '--check']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
  });

  it('refuses a file that is not a form with a clear message', async () => {
    const res = await cli(['types', pdf('negative-not-a-pdf.pdf')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^formcast: .*negative-not-a-pdf\.pdf: /);
  });

  describe('TEMPLATE_ID against a running server', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer('sqlite');
    }, 120_000);
    afterAll(async () => s?.close());

    it('reads the template from FORMCAST_URL with FORMCAST_API_KEY: the same types as the file, checked by --check', async () => {
      const file = pdf('illinois-firearm-bill-of-sale.pdf');
      const created = await api(s, s.b).post(
        '/v1/templates',
        uploadForm(readFileSync(file), 'illinois-firearm-bill-of-sale.pdf'),
      );
      const id = created.json.data.id as string;
      const env = { FORMCAST_URL: s.url, FORMCAST_API_KEY: s.b.key };
      const out = path.join(dir, 'bill.ts');
      const res = await cli(['types', id, '-o', out, '--name', 'Bill'], env);
      expect(res.code, res.stderr).toBe(0);
      const fromServer = readFileSync(out, 'utf8');
      const offline = (await cli(['types', file, '--name', 'Bill'])).stdout;
      const body = (code: string) => code.slice(code.indexOf('export interface'));
      expect(body(fromServer)).toBe(body(offline));
      expect(fromServer).toContain(`formcast types ${id} --name Bill`);

      expect((await cli(['types', id, '-o', out, '--name', 'Bill', '--check'], env)).code).toBe(0);
      const put = await api(s, s.b).put(
        `/v1/templates/${id}/file`,
        uploadForm(readFileSync(pdf('pdfjs-required-fields.pdf')), 'pdfjs-required-fields.pdf'),
      );
      expect(put.status).toBe(200);
      const stale = await cli(['types', id, '-o', out, '--name', 'Bill', '--check'], env);
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain(`no longer matches template ${id}`);

      // another account's key, and no key at all
      const foreign = await cli(['types', id], { ...env, FORMCAST_API_KEY: s.a.key });
      expect(foreign.code).toBe(1);
      expect(foreign.stderr).toContain('404');
      const keyless = await cli(['types', id], { FORMCAST_URL: s.url, FORMCAST_API_KEY: '' });
      expect(keyless.code).toBe(1);
      expect(keyless.stderr).toContain('FORMCAST_API_KEY');
    });
  });
});
