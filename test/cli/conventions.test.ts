// The CLI's conventions, run as a user runs the built CLI: --version, help for every command (both
// ways), exit code 2 for usage errors and 1 for failures, a missing output folder named as such,
// `types --check` blind only to the form's file name in its header, and a CSV row with a stray quote
// reported with its line while the rest of the batch is rendered.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';

const BIN = path.join(repoRoot, 'bin/formcast.js');
const corpus = corpusDir();
const work = mkdtempSync(path.join(tmpdir(), 'formcast-conventions-'));
const FORM = corpus ? path.join(corpus, 'pdfs', 'pdfjs-required-fields.pdf') : '';

/** The CLI's exit code and output, whatever the code. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: work, env: { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: path.join(work, 'data') } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const COMMANDS = ['serve', 'accounts', 'keys', 'render', 'batch', 'backup', 'openapi', 'types', 'help'];

describe('formcast CLI conventions', { timeout: 120_000 }, () => {
  it('prints its version', async () => {
    const version = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect((await cli(['-v'])).stdout.trim()).toBe(version);
  });

  it('has help for every command, as `help COMMAND` and as `COMMAND --help`', async () => {
    const overview = await cli(['--help']);
    expect(overview.code).toBe(0);
    for (const command of COMMANDS) {
      expect(overview.stdout).toContain(`formcast ${command}`);
      const a = await cli(['help', command]);
      const b = await cli([command, '--help']);
      expect(a.code, command).toBe(0);
      expect(a.stdout, command).toMatch(new RegExp(`^usage: formcast ${command}`));
      expect(b).toEqual(a);
    }
  });

  it('exits 2 on usage errors, with a hint, and 1 on failures', async () => {
    for (const args of [
      [],
      ['nope'],
      ['help', 'nope'],
      ['render'],
      ['render', '--bogus'],
      ['types'],
      ['batch', 'x.pdf'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/formcast (--help|help \w+)/);
    }
    writeFileSync(path.join(work, 'd.json'), '{}');
    const failed = await cli(['render', path.join(work, 'missing.pdf'), 'd.json', '-o', 'o.pdf']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('file not found');
  });

  it.skipIf(!corpus)('names a missing output folder as such, before rendering', async () => {
    writeFileSync(path.join(work, 'd.json'), '{"Text1":"x"}');
    const r = await cli(['render', FORM, 'd.json', '-o', 'no/such/folder/out.pdf']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the output folder no/such/folder does not exist');
    const t = await cli(['types', FORM, '-o', 'nowhere/form.ts']);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain('the output folder nowhere does not exist');
  });

  it.skipIf(!corpus)('types --check ignores the form file name in the header, and nothing else', async () => {
    const renamed = path.join(work, 'renamed form.pdf');
    copyFileSync(FORM, renamed);
    // --name: the interface's default name comes from the file name
    const named = ['-o', 'form.ts', '--name', 'FormData'];
    expect((await cli(['types', FORM, ...named])).code).toBe(0);
    // the same form under another name: the header differs only by the name
    expect((await cli(['types', renamed, ...named, '--check'])).code).toBe(0);
    // any other change, in the header too, is caught
    const text = readFileSync(path.join(work, 'form.ts'), 'utf8');
    writeFileSync(path.join(work, 'form.ts'), text.replace('do not edit', 'edit freely'));
    expect((await cli(['types', renamed, ...named, '--check'])).code).toBe(1);
    writeFileSync(path.join(work, 'form.ts'), text.replace('Text1: string', 'Text1: number'));
    expect((await cli(['types', FORM, ...named, '--check'])).code).toBe(1);
  });

  it.skipIf(!corpus)('reports a CSV row with a stray quote by its line and renders the others', async () => {
    writeFileSync(
      path.join(work, 'rows.csv'),
      'Text1,Text2\nfirst,a\nbad "quote" here,b\n"two\nlines",c\n"never closed,d\nlast,e\n',
    );
    const r = await cli(['batch', FORM, 'rows.csv', '-o', 'out', '--workers', '0']);
    expect(r.code).toBe(1); // some rows failed
    expect(r.stderr).toMatch(/row 2 \(line 3\):.*not valid CSV/);
    expect(r.stderr).toMatch(/row 4 \(line 6\):.*not valid CSV/);
    const files = readdirSync(path.join(work, 'out')).filter((f) => f.endsWith('.pdf'));
    expect(files.sort()).toEqual(['0001.pdf', '0003.pdf', '0005.pdf']);
    expect(existsSync(path.join(work, 'out', '0002.pdf'))).toBe(false);
  });
});
