// Two targets of their own: a database-only CLI call against `node -e 0` (whole processes, the
// same run), and a Unicode render against a Latin one on the same form (in-process fill+flatten,
// after a warm-up that lets the template's font subsets grow to the characters used).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FontLibrary } from '../src/pdf/fonts/font-library.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import type { FillValue, TemplateAnalysis } from '../src/pdf/types.js';
import { summarise, timeIt, type Summary, type TimeOptions } from './stats.js';

const run = promisify(execFile);

export interface CliResult {
  cli: Summary;
  node: Summary;
}

/** `formcast accounts list --json` (compiled build, SQLite) and `node -e 0`, alternated. */
export async function benchCli(repoRoot: string, opts: TimeOptions): Promise<CliResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const cli = () =>
    run(process.execPath, [path.join(repoRoot, 'bin/formcast.js'), 'accounts', 'list', '--json'], { env });
  try {
    await cli(); // creates the database once, outside the timing
    const o = { ...opts, iterations: Math.min(opts.iterations, 20) };
    return { cli: await timeIt(cli, o), node: await timeIt(() => run(process.execPath, ['-e', '0']), o) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const LATIN = ['Dupont 42', 'Jean Martin', 'rue des Lilas 12', 'Luxembourg'];
const UNICODE = ['مرحبا بالعالم', '안녕하세요 세계', 'Zoë Łódź Привет', '東京都 渋谷区', 'שלום 42'];

/** Text values for every text field, Latin or from several scripts. */
function textValues(analysis: TemplateAnalysis, samples: string[]): Record<string, FillValue> {
  const values: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.type !== 'text' || f.pdfMeta.readOnly) return;
    values[f.pdfMeta.originalName] = {
      kind: 'text',
      text: Array.from(samples[i % samples.length])
        .slice(0, f.maxLength ?? 100)
        .join(''),
    };
  });
  return values;
}

export interface UnicodeResult {
  latin: Summary;
  unicode: Summary;
}

export async function benchUnicode(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  cacheKey: string,
  opts: TimeOptions,
): Promise<UnicodeResult> {
  // One template cache with its font library, as a render worker has (its composition root creates them).
  const cache = new TemplateCache({
    maxEntries: 32,
    maxBytes: 256 * 1024 * 1024,
    fonts: new FontLibrary({ shapeCacheEntries: 4096 }),
  });
  const fill = (values: Record<string, FillValue>) => () =>
    fillPdf(template, analysis, { values, flatten: true }, cacheKey, cache);
  const latin = fill(textValues(analysis, LATIN));
  const unicode = fill(textValues(analysis, UNICODE));
  // Alternated call by call, so both see the same machine (a shared box's speed moves by the minute).
  for (let i = 0; i < opts.warmup; i++) {
    await latin();
    await unicode();
  }
  const samples: [number[], number[]] = [[], []];
  const deadline = performance.now() + opts.maxSeconds * 2000;
  for (let i = 0; i < opts.iterations; i++) {
    for (const [k, fn] of [latin, unicode].entries()) {
      const t = performance.now();
      await fn();
      samples[k].push(performance.now() - t);
    }
    if (i >= 4 && performance.now() > deadline) break;
  }
  return { latin: summarise(samples[0]), unicode: summarise(samples[1]) };
}

export interface MarksResult {
  /** a letter and 99,999 combining marks (issue 27: 30 s of a worker before the stream-safe limit) */
  tower: { oneLine: Summary; multiLine: Summary };
  /** 100,000 code points of letters each with 30 marks (the limit), in one word */
  dense: { oneLine: Summary; multiLine: Summary };
}

/** A one-line and a multi-line auto-size field on one page, as a customer's template has them. */
async function markForm(): Promise<{ bytes: Uint8Array; analysis: TemplateAnalysis }> {
  const { PDFDocument, PDFName, PDFString } = await import('@cantoo/pdf-lib');
  const { analyse } = await import('../src/pdf/analysis/analyse.js');
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 400]);
  const form = doc.getForm();
  for (const [name, multiline] of [
    ['one', false],
    ['multi', true],
  ] as const) {
    const field = form.createTextField(name);
    if (multiline) field.enableMultiline();
    field.addToPage(page, {
      x: 20,
      y: multiline ? 100 : 300,
      width: 300,
      height: multiline ? 150 : 20,
      borderWidth: 0,
    });
    field.acroField.dict.set(PDFName.of('DA'), PDFString.of('/Helv 0 Tf 0 g'));
  }
  const bytes = await doc.save({ updateFieldAppearances: false });
  return { bytes, analysis: await analyse(bytes) };
}

/** In-process fill+flatten of values heavy in combining marks, in each kind of field. */
export async function benchMarks(opts: TimeOptions): Promise<MarksResult> {
  const { bytes, analysis } = await markForm();
  const cache = new TemplateCache({
    maxEntries: 4,
    maxBytes: 64 * 1024 * 1024,
    fonts: new FontLibrary({ shapeCacheEntries: 4096 }),
  });
  const o = { ...opts, iterations: Math.min(opts.iterations, 20), warmup: Math.min(opts.warmup, 3) };
  const time = (field: string, text: string) =>
    timeIt(
      () => fillPdf(bytes, analysis, { values: { [field]: { kind: 'text', text } }, flatten: true }, 'marks', cache),
      o,
    );
  const tower = `a${'\u0301'.repeat(99_999)}`;
  const dense = `a${'\u0301'.repeat(30)}`.repeat(3225);
  return {
    tower: { oneLine: await time('one', tower), multiLine: await time('multi', tower) },
    dense: { oneLine: await time('one', dense), multiLine: await time('multi', dense) },
  };
}
