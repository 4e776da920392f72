// `formcast batch` run as users run it: the compiled CLI (npm run build first) on a corpus form, with
// JSONL and CSV data; outputs judged by pdftk, qpdf and pdftotext. stderr is a pipe here, so progress
// comes as plain lines (the terminal bar is the same counts drawn by cli-progress).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cellValue, csvRows, jsonlRows } from '../../src/cli/batch-input.js';
import type { AnalysedField } from '../../src/pdf/types.js';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { hasTool, pdftkFields, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';

const run = promisify(execFile);
const BIN = path.join(repoRoot, 'bin/formcast.js');
const dir = corpusDir();
const FORM = dir ? path.join(dir, 'pdfs', 'pdflib-sample-form.pdf') : '';
const tools = ['qpdf', 'pdftk', 'pdftotext'].every(hasTool);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function batch(args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'batch', ...args], { cwd: repoRoot });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const workdir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'formcast-batch-'));
const fieldValue = async (file: string, name: string) =>
  (await pdftkFields(file)).find((f) => f.name === name)?.values.at(-1);

describe.skipIf(!dir || !tools)('formcast batch', () => {
  it('renders one PDF per JSONL row, reports the bad rows with their field, exits 1, and combines the rest', async () => {
    const work = workdir();
    const data = path.join(work, 'data.jsonl');
    fs.writeFileSync(
      data,
      [
        JSON.stringify({ Name_Last: 'Dupont', City: 'Paris', Sex: 'MALE', 'HIGH SCHOOL DIPLOMA': true }),
        JSON.stringify({ Name_Last: 42 }),
        '',
        JSON.stringify({ Name_Last: 'Martin', City: 'Lyon', Sex: 'FEMALE' }),
        '{ not json',
        JSON.stringify({ Name_Last: 'Bernard', City: 'Nantes' }),
      ].join('\n'),
    );
    const out = path.join(work, 'out');
    const combined = path.join(work, 'all.pdf');
    const r = await batch([FORM, data, '-o', out, '--no-flatten', '--combine', combined, '--json']);

    expect(r.code).toBe(1);
    expect(fs.readdirSync(out).sort()).toEqual(['0001.pdf', '0003.pdf', '0005.pdf']);
    expect(await fieldValue(path.join(out, '0001.pdf'), 'Name_Last')).toBe('Dupont');
    expect(await fieldValue(path.join(out, '0001.pdf'), 'Sex')).toBe('MALE');
    expect(await fieldValue(path.join(out, '0003.pdf'), 'City')).toBe('Lyon');
    expect(await fieldValue(path.join(out, '0005.pdf'), 'Name_Last')).toBe('Bernard');

    // Rows count data lines; lines count the file (the blank line 3 is no row).
    expect(r.stderr).toMatch(/row 2 \(line 2\): Field "Name_Last" expects a string, received number/);
    expect(r.stderr).toMatch(/row 4 \(line 5\): the line is not valid JSON/);
    expect(r.stderr).toMatch(/progress: 5\/5 rows \(100%\), [\d.]+ rows\/s, 2 failed/);
    expect(r.stderr).toMatch(/done: 3 of 5 rows rendered into .*, 2 failed/);
    const summary = JSON.parse(r.stdout.trim());
    expect(summary).toMatchObject({ rows: 5, rendered: 3, failed: 2, combined });
    expect(summary.errors).toEqual([
      expect.objectContaining({ row: 2, line: 2, field: 'Name_Last' }),
      expect.objectContaining({ row: 4, line: 5 }),
    ]);

    // The combined file: the three rendered rows in order, each copy's fields its own (#position).
    expect((await qpdfCheck(combined)).code).toBe(0);
    const fields = new Map((await pdftkFields(combined)).map((f) => [f.name, f.values.at(-1)]));
    expect([fields.get('Name_Last#1'), fields.get('Name_Last#2'), fields.get('Name_Last#3')]).toEqual([
      'Dupont',
      'Martin',
      'Bernard',
    ]);
    expect(fields.get('Sex#1')).toBe('MALE');
    expect(fields.get('Sex#2')).toBe('FEMALE');
  }, 120_000);

  it('converts CSV cells with the template schema: checkbox words, empty cells left alone, dates', async () => {
    const work = workdir();
    const data = path.join(work, 'data.csv');
    fs.writeFileSync(
      data,
      [
        'Name_Last,HIGH SCHOOL DIPLOMA,PHD,Sex,Birthdate,City',
        'Dupont,x,no,MALE,1990-05-17,"Paris, France"',
        'Martin,yes,,FEMALE,,',
        'Bernard,maybe,,,,Nantes',
      ].join('\r\n'),
    );
    const out = path.join(work, 'out');
    const r = await batch([FORM, data, '-o', out, '--no-flatten']);

    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/row 3 \(line 4\): Field "HIGH SCHOOL DIPLOMA" expects a boolean, received string/);
    expect(fs.readdirSync(out).sort()).toEqual(['0001.pdf', '0002.pdf']);
    const first = new Map((await pdftkFields(path.join(out, '0001.pdf'))).map((f) => [f.name, f.values.at(-1)]));
    expect(first.get('Name_Last')).toBe('Dupont');
    expect(first.get('City')).toBe('Paris, France');
    expect(first.get('HIGH SCHOOL DIPLOMA')).not.toMatch(/^(Off)?$/);
    expect(first.get('PHD') ?? 'Off').toBe('Off');
    expect(first.get('Birthdate')).toMatch(/1990|90/);
    const second = new Map((await pdftkFields(path.join(out, '0002.pdf'))).map((f) => [f.name, f.values.at(-1)]));
    expect(second.get('Sex')).toBe('FEMALE');
    expect(second.get('HIGH SCHOOL DIPLOMA')).not.toMatch(/^(Off)?$/);
    // An empty cell sends nothing: the field keeps what the template has (this one is prefilled).
    expect(second.get('City')).toBe(await fieldValue(FORM, 'City'));
    expect(second.get('City')).toBeTruthy();
  }, 120_000);

  it('flattens by default and combines every row into one valid PDF, values in row order', async () => {
    const work = workdir();
    const data = path.join(work, 'data.jsonl');
    const names = ['Alpha', 'Bravo', 'Charlie', 'Delta'];
    fs.writeFileSync(data, names.map((n) => JSON.stringify({ Name_Last: `Zq${n}` })).join('\n'));
    const combined = path.join(work, 'all.pdf');
    const r = await batch([FORM, data, '-o', path.join(work, 'out'), '--combine', combined, '--workers', '1']);

    expect(r.code, r.stderr).toBe(0);
    expect(fs.readdirSync(path.join(work, 'out')).sort()).toEqual(['0001.pdf', '0002.pdf', '0003.pdf', '0004.pdf']);
    expect((await qpdfCheck(combined)).code).toBe(0);
    expect(await pdftkFields(combined)).toEqual([]);
    const text = await pdftotext(combined);
    const pages = text.split('\f').filter((p) => p.trim() !== '');
    expect(pages).toHaveLength(4);
    for (const [i, n] of names.entries()) expect(pages[i]).toContain(`Zq${n}`);
  }, 120_000);

  it.skipIf(!hasTool('script'))(
    'draws a progress bar with counts, rate and ETA on a terminal',
    async () => {
      const work = workdir();
      const data = path.join(work, 'data.jsonl');
      fs.writeFileSync(data, ['{"Name_Last":"A"}', '{"Name_Last":7}', '{"Name_Last":"C"}'].join('\n'));
      // script(1) runs the CLI on a pseudo-terminal: stderr is a TTY there.
      const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const command = [process.execPath, BIN, 'batch', FORM, data, '-o', path.join(work, 'out')].map(q).join(' ');
      const r = await run('script', ['-qec', command, '/dev/null'], { cwd: repoRoot }).catch(
        (e: { code?: number; stdout?: string }) => ({ stdout: e.stdout ?? '', code: e.code }),
      );
      // without the terminal control sequences (cursor moves, line clears between frames)
      const screen = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      expect(screen).toMatch(/100% 3\/3 rows \| [\d.]+\/s \| ETA \S+ \| 1 failed/);
      expect(screen).toMatch(/row 2 \(line 2\): Field "Name_Last" expects a string/);
      expect(screen).not.toMatch(/^progress: /m);
    },
    120_000,
  );

  it('refuses a missing template or data file before writing anything', async () => {
    const work = workdir();
    const r = await batch([path.join(work, 'nope.pdf'), path.join(work, 'nope.jsonl'), '-o', path.join(work, 'o')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/file not found/);
    expect(fs.existsSync(path.join(work, 'o'))).toBe(false);
  }, 60_000);
});

describe('batch input', () => {
  const field = (type: AnalysedField['type'], extra: Partial<AnalysedField> = {}): AnalysedField =>
    ({
      name: 'f',
      type,
      required: false,
      pdfMeta: { originalName: 'f', page: 1 },
      detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true },
      ...extra,
    }) as AnalysedField;

  it('reads checkbox words, numbers and multi-select lists; leaves what does not convert as text', () => {
    for (const word of ['true', 'Yes', 'x', 'X', '1', 'on']) expect(cellValue(word, field('checkbox'))).toBe(true);
    for (const word of ['false', 'NO', '0', 'off']) expect(cellValue(word, field('checkbox'))).toBe(false);
    expect(cellValue('maybe', field('checkbox'))).toBe('maybe');
    expect(cellValue('Yes', field('checkbox', { options: ['Yes', 'No'] }))).toBe('Yes');
    expect(cellValue(' 12.50 ', field('number'))).toBe(12.5);
    expect(cellValue('-3', field('number'))).toBe(-3);
    expect(cellValue('12 EUR', field('number'))).toBe('12 EUR');
    const multi = field('dropdown', { options: ['a', 'b', 'c;d'], detail: { ft: 'Ch', multiSelect: true } as never });
    expect(cellValue('a; b', multi)).toEqual(['a', 'b']);
    expect(cellValue('c;d', multi)).toBe('c;d');
    expect(cellValue('007', field('text'))).toBe('007');
    expect(cellValue('x', undefined)).toBe('x');
  });

  it('numbers CSV rows after the header and JSONL rows by non-blank line', () => {
    const rows = csvRows('f,g\n1,\n\n"a\nb",2\n', [field('number')]);
    expect(rows).toEqual([
      { row: 1, line: 2, data: { f: 1 } },
      { row: 2, line: 5, data: { f: 'a\nb', g: '2' } },
    ]);
    expect(jsonlRows('{"a":1}\n\n[1]\n')).toEqual([
      { row: 1, line: 1, data: { a: 1 } },
      { row: 2, line: 3, error: 'the line is not a JSON object' },
    ]);
  });
});
