// Every corpus form against pdftk: in-process fill+flatten (template prepared once, as a render
// worker keeps it) and `pdftk fill_form … flatten` with the same values, one row per form. The
// first render (the template prepared, code not yet optimised for this form) is timed on its own;
// the median is taken after a warm-up, as a long-lived render worker runs. Sizes: our flattened output,
// pdftk's for the same values, and the template + what the values draw (our flattened output with the
// values minus without them). The offline CLI (`formcast render`, the compiled build) is timed as a whole
// process on the same data, as pdftk is: one offline render against one pdftk process, the two run in
// turns so that both meet the same load; compared by their fastest runs (what a quiet machine approaches).
import { execFile } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { validateData } from '../src/modules/render-data/validate-data.js';
import { analyse } from '../src/pdf/analysis/analyse.js';
import { FontLibrary } from '../src/pdf/fonts/font-library.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { PdfEngineError, type FillValue, type TemplateAnalysis } from '../src/pdf/types.js';
import { generateData } from './data.js';
import { toXfdf } from './pdftk.js';
import { summarise, timeIt, type Summary, type TimeOptions } from './stats.js';

const run = promisify(execFile);
/** The analysis's answers for files that are not forms (INVALID_PDF with one of these messages). */
const NOT_A_FORM = /not a form|no fillable fields|not a PDF/;

export interface CorpusRow {
  file: string;
  fields: number;
  /** the first fill+flatten of the form, template preparation included */
  firstMs?: number;
  ours?: Summary;
  pdftk?: Summary;
  /**
   * Why there is no comparison: `not-a-form` (the analysis refuses the file, as the API does),
   * `pdftk` (pdftk fails on it: nothing to compare with), `ours` (our engine failed: a miss).
   */
  failed?: 'not-a-form' | 'pdftk' | 'ours';
  note?: string;
  sizes?: OutputSizes;
  /** `node bin/formcast.js render TEMPLATE DATA -o OUT`, whole process, timed in turns with pdftk */
  cli?: Summary;
}

export interface OutputSizes {
  template: number;
  /** our flattened output */
  ours: number;
  /** what the values add to our flattened output (with them minus without them) */
  drawn: number;
  /** pdftk's flattened output for the same values */
  pdftk?: number;
}

/**
 * Two commands timed in turns (a, b, a, b...: both meet the same moments of a shared machine's load),
 * each after one untimed run; without `b`, `a` alone. A failure of `b` is marked `fromB`.
 */
async function alternated(
  a: () => Promise<unknown>,
  b: (() => Promise<unknown>) | undefined,
  opts: TimeOptions,
): Promise<{ a: Summary; b?: Summary }> {
  const runB = async () => {
    try {
      await b!();
    } catch (err) {
      throw Object.assign(new Error(String((err as Error).message ?? err)), { fromB: true });
    }
  };
  if (!b) return { a: await timeIt(a, opts) };
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < opts.warmup + opts.iterations; i++) {
    for (const [k, fn] of [a, runB].entries()) {
      const t = performance.now();
      await fn();
      if (i >= opts.warmup) samples[k].push(performance.now() - t);
    }
  }
  return { a: summarise(samples[0]), b: summarise(samples[1]) };
}

export async function benchCorpus(
  pdfs: string[],
  work: string,
  opts: TimeOptions,
  pdftkOpts: TimeOptions | undefined,
  log: (msg: string) => void,
  /** the checkout whose bin/formcast.js the offline render runs; undefined: not timed */
  cliRoot?: string,
): Promise<CorpusRow[]> {
  // A template cache with one font library, as a render worker has.
  const cache = new TemplateCache({
    maxEntries: 64,
    maxBytes: 512 * 1024 * 1024,
    fonts: new FontLibrary({ shapeCacheEntries: 4096 }),
  });
  const rows: CorpusRow[] = [];
  for (const pdf of pdfs) {
    const file = path.basename(pdf);
    const row: CorpusRow = { file, fields: 0 };
    rows.push(row);
    log(`corpus: ${file}`);
    const fail = (failed: CorpusRow['failed'], err: unknown) => {
      row.failed = failed;
      // a failed command says more on its stderr than in its message (which repeats the command line)
      const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
      row.note = (stderr || (err as Error).message).split('\n').slice(0, 2).join(' ').slice(0, 160);
    };
    const bytes = new Uint8Array(readFileSync(pdf));
    let analysis: TemplateAnalysis;
    try {
      analysis = await analyse(bytes);
    } catch (err) {
      // Refusing a file that is no form is what the API does; any other failure to analyse is ours.
      fail(err instanceof PdfEngineError && NOT_A_FORM.test(err.message) ? 'not-a-form' : 'ours', err);
      continue;
    }
    row.fields = analysis.fields.length;
    let values: Record<string, FillValue>;
    let data: Record<string, unknown>;
    try {
      ({ data } = generateData(analysis.fields));
      ({ values } = validateData(analysis.fields, data, { strict: false, locale: 'en-US', timezone: 'UTC' }));
    } catch (err) {
      fail('ours', err);
      continue;
    }
    const fill = () => fillPdf(bytes, analysis, { values, flatten: true }, `corpus:${file}`, cache);
    try {
      const t0 = performance.now();
      await fill();
      row.firstMs = performance.now() - t0;
      row.ours = await timeIt(fill, opts);
      const blank = await fillPdf(bytes, analysis, { values: {}, flatten: true }, `corpus:${file}`, cache);
      const ours = (await fill()).bytes.length;
      row.sizes = { template: bytes.length, ours, drawn: Math.max(0, ours - blank.bytes.length) };
    } catch (err) {
      fail('ours', err);
      continue;
    }
    if (!pdftkOpts) continue;
    const xfdf = path.join(work, `${file}.xfdf`);
    writeFileSync(xfdf, toXfdf(analysis.fields, values));
    const pdftkOut = path.join(work, `${file}.pdftk.pdf`);
    const pdftk = () => run('pdftk', [pdf, 'fill_form', xfdf, 'output', pdftkOut, 'flatten']);
    let cli: (() => Promise<unknown>) | undefined;
    if (cliRoot) {
      const json = path.join(work, `${file}.json`);
      writeFileSync(json, JSON.stringify(data));
      const out = path.join(work, `${file}.cli.pdf`);
      // the data was generated for en-US / UTC (the CLI's defaults are fr-FR / Europe/Paris)
      const args = [path.join(cliRoot, 'bin/formcast.js'), 'render', pdf, json, '-o', out];
      cli = () => run(process.execPath, [...args, '--locale', 'en-US', '--timezone', 'UTC']);
    }
    try {
      const timed = await alternated(pdftk, cli, pdftkOpts);
      row.pdftk = timed.a;
      if (timed.b) row.cli = timed.b;
      if (row.sizes) row.sizes.pdftk = statSync(pdftkOut).size;
    } catch (err) {
      if (!(err as { fromB?: boolean }).fromB) {
        fail('pdftk', err);
        continue;
      }
      row.note = `formcast render failed: ${String(err).slice(0, 120)}`;
      try {
        row.pdftk = await timeIt(pdftk, pdftkOpts);
        if (row.sizes) row.sizes.pdftk = statSync(pdftkOut).size;
      } catch (pdftkErr) {
        fail('pdftk', pdftkErr);
      }
    }
  }
  return rows;
}
