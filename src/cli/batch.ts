// `formcast batch`: one template, many rows of data (JSONL or CSV), one PDF per row, offline. The
// same analysis, validation and fill as the API; a row that fails is reported (row, line, field,
// message) and the batch goes on; the exit code is 1 when any row failed. With --sign, as the server's
// signed batches: each row's PDF signed, and the combined file signed once as a whole.
import { createHash } from 'node:crypto';
import { outputFolderProblem } from './output-path.js';
import { usageError } from './help.js';
import os from 'node:os';
import path from 'node:path';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { OfflineSigner, SigningFlags } from './offline-signing.js';
import { embedSignatureInFile } from '../modules/signing/signed-file.js';
import { analyse } from '../pdf/analysis/analyse.js';
import { DEFAULT_LIMITS } from '../pdf/limits.js';
import { combineFiles } from '../workers/combine-files.js';
import { PdfEngineError, type FillResult, type TemplateAnalysis } from '../pdf/types.js';
import type { RenderEngine } from '../ports/render-engine.js';
import { validateData } from '../modules/render-data/validate-data.js';
import { scriptRejectionWarnings } from '../modules/render-data/script-rejections.js';
import { AppError, DataValidationError } from '../errors.js';
import { CliError, fail } from './fail.js';
import { csvRows, isCsv, jsonlRows, type Row } from './batch-input.js';
import { createProgress } from './progress.js';

export interface BatchFlags extends SigningFlags {
  output?: string;
  combine?: string;
  workers?: string;
  'no-flatten'?: boolean;
  'no-calculate'?: boolean;
  watermark?: boolean;
  strict?: boolean;
  locale?: string;
  timezone?: string;
  json?: boolean;
}

const USAGE =
  'usage: formcast batch TEMPLATE.pdf DATA.jsonl|DATA.csv -o OUT_DIR [--combine OUT.pdf] [--workers N] [--no-flatten] [--no-calculate] [--sign CERT.p12] [--json]';

/** Distinct warnings printed at the end (each once, with how many rows had it). */
const MAX_WARNINGS_LISTED = 20;

interface RowError {
  row: number;
  line: number;
  field?: string;
  message: string;
}

interface Job {
  template: Uint8Array;
  analysis: TemplateAnalysis;
  engine: RenderEngine;
  cacheKey: string;
  flags: BatchFlags;
  outDir: string;
  width: number;
  signer?: OfflineSigner;
}

export async function batchCommand(args: string[], flags: BatchFlags): Promise<number> {
  const [templatePath, dataPath] = args;
  if (!templatePath || !dataPath || !flags.output) return usageError(USAGE, 'batch');
  const chosen = flags.workers === undefined ? undefined : Number(flags.workers);
  if (chosen !== undefined && (!Number.isInteger(chosen) || chosen < 0 || chosen > 256))
    return usageError(`--workers must be a whole number from 0 to 256, not ${JSON.stringify(flags.workers)}`);
  const combineProblem = flags.combine === undefined ? undefined : outputFolderProblem(flags.combine);
  if (combineProblem) return fail(combineProblem);
  const started = performance.now(); // a duration: the monotonic timer, not the wall clock

  // 1. The certificate, template and rows: any problem here stops the batch before anything is written.
  let template: Uint8Array;
  let analysis: TemplateAnalysis;
  let rows: Row[];
  let signer: OfflineSigner | undefined;
  try {
    // the signing code (PKI.js, node-forge) loads only for a batch that signs
    const sign = flags.sign;
    if (sign) signer = await (await import('./offline-signing.js')).offlineSigner({ ...flags, sign });
    template = await readFile(templatePath);
    analysis = await analyse(template, undefined, { captions: false }); // captions: unused by renders
    const text = await readFile(dataPath, 'utf8');
    rows = isCsv(dataPath) ? csvRows(text, analysis.fields) : jsonlRows(text);
  } catch (err) {
    if (err instanceof PdfEngineError) return fail(`${templatePath}: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return fail(`file not found: ${(err as NodeJS.ErrnoException).path}`);
    if ((err as { code?: string }).code?.startsWith('CSV_')) return fail(`${dataPath}: ${(err as Error).message}`);
    if (err instanceof CliError) return fail(err.message);
    // a PKCS#12 refused (wrong password, no key, ...): the same words as the API's
    if (err instanceof AppError) return fail(`${flags.sign}: ${err.message}`);
    throw err;
  }
  if (rows.length === 0) return fail(`${dataPath} has no rows`);
  const workers = chosen ?? defaultWorkers(rows.length);
  await mkdir(flags.output, { recursive: true });

  // 2. Every row, a bounded number at a time, each written as soon as it is rendered.
  const engine = await createEngine(workers);
  const progress = createProgress({ total: rows.length, stream: process.stderr, tty: !!process.stderr.isTTY });
  const job: Job = {
    template,
    analysis,
    engine,
    cacheKey: `batch:${createHash('sha256').update(template).digest('hex')}`,
    flags,
    outDir: flags.output,
    width: Math.max(4, String(rows.length).length),
    signer,
  };
  const errors: RowError[] = [];
  const warnings = new Map<string, number>();
  const written: (string | undefined)[] = new Array(rows.length);
  try {
    await forEachLimited(rows, Math.max(1, workers * 2), async (row) => {
      const outcome = await renderRow(job, row);
      if ('error' in outcome) {
        errors.push(outcome.error);
        const { field, message } = outcome.error;
        // Validation messages name their field already; say it only when they do not.
        const where = field && !message.includes(`"${field}"`) ? ` field "${field}":` : '';
        progress.log(`row ${row.row} (line ${row.line}):${where} ${message}`);
      } else {
        written[row.row - 1] = outcome.file;
        for (const w of outcome.warnings) warnings.set(w, (warnings.get(w) ?? 0) + 1);
      }
      progress.tick('error' in outcome);
    });
  } finally {
    progress.stop();
    // The pool's worker handles are unreferenced (a server may exit around them): hold the event
    // loop open until they have exited, or this process would end in the middle of the batch.
    const hold = setInterval(() => {}, 1000);
    await engine.close?.();
    clearInterval(hold);
  }

  // 3. The combined file, from the rows that were rendered, in row order.
  const files = written.filter((f): f is string => f !== undefined);
  let combined: string | undefined;
  let combineFailed: string | undefined;
  if (flags.combine && files.length > 0) {
    // read one file at a time and written as it is made (combine-files.ts), then renamed into place;
    // signed as the server signs a batch's: the signature prepared as the file is written, the CMS put in after
    const tmp = `${flags.combine}.${process.pid}.tmp`;
    try {
      const signing = signer?.detached();
      const outcome = await combineFiles(
        files.map((file) => ({ path: file, flattened: !flags['no-flatten'] })),
        tmp,
        signing?.slot,
      );
      if (signing && outcome.signature) {
        const { byteRange, digest } = outcome.signature;
        await embedSignatureInFile(tmp, byteRange, await signing.cms(Buffer.from(digest, 'hex')));
      }
      await rename(tmp, flags.combine);
      combined = flags.combine;
    } catch (err) {
      // the rows are written: say why the combined file is not, and fail the batch
      if (!(err instanceof PdfEngineError)) throw err;
      combineFailed = err.message;
      console.error(`formcast: ${flags.combine}: ${err.message}`);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  // 4. Warnings once each, a summary line, and the JSON summary when asked.
  const listed = [...warnings].slice(0, MAX_WARNINGS_LISTED);
  for (const [w, count] of listed) console.error(`warning: ${w}${count > 1 ? ` (${count} rows)` : ''}`);
  if (warnings.size > listed.length) console.error(`warning: ... and ${warnings.size - listed.length} more`);
  errors.sort((a, b) => a.row - b.row);
  const elapsedMs = Math.round(performance.now() - started);
  const rate = (rows.length * 1000) / Math.max(1, elapsedMs);
  const signedBy = signer ? `, signed by ${signer.subject}${flags.tsa ? ', time-stamped' : ''}` : '';
  console.error(
    `done: ${files.length} of ${rows.length} rows rendered into ${flags.output}${signedBy}, ${errors.length} failed, ` +
      `in ${(elapsedMs / 1000).toFixed(1)}s (${rate.toFixed(1)} rows/s)${combined ? `; combined: ${combined}` : ''}` +
      (flags.combine && !combined ? (combineFailed ? '; combined file not written' : '; nothing to combine') : ''),
  );
  if (flags.json) {
    const summary = {
      rows: rows.length,
      rendered: files.length,
      failed: errors.length,
      outDir: flags.output,
      combined: combined ?? null,
      errors,
      elapsedMs,
    };
    console.log(JSON.stringify(summary));
  }
  return errors.length > 0 || combineFailed ? 1 : 0;
}

type Outcome = { file: string; warnings: string[] } | { error: RowError };

async function renderRow(job: Job, row: Row): Promise<Outcome> {
  const { flags } = job;
  if (!row.data) return { error: { row: row.row, line: row.line, message: row.error ?? 'unreadable row' } };
  try {
    const strict = flags.strict ?? false;
    const calculate = !flags['no-calculate'];
    const { values, warnings } = validateData(job.analysis.fields, row.data, {
      strict,
      locale: flags.locale ?? 'fr-FR',
      timezone: flags.timezone ?? 'Europe/Paris',
      calculate,
    });
    const result = await job.engine.fill(
      job.template,
      job.analysis,
      { values, flatten: !flags['no-flatten'], watermark: flags.watermark ? 'formcast' : undefined, calculate },
      job.cacheKey,
    );
    const rejected = scriptRejectionWarnings(job.analysis.fields, result.scriptRejections, strict);
    const file = path.join(job.outDir, `${String(row.row).padStart(job.width, '0')}.pdf`);
    // signed as the API signs a render: visibly in the form's empty signature field, else invisibly
    if (job.signer) await writeFile(file, await job.signer.sign(joined(result), job.analysis, values));
    else await writeResult(file, result);
    return { file, warnings: [...warnings, ...result.warnings, ...rejected] };
  } catch (err) {
    if (err instanceof DataValidationError)
      return { error: { row: row.row, line: row.line, field: err.details.field, message: err.message } };
    if (err instanceof PdfEngineError) return { error: { row: row.row, line: row.line, message: err.message } };
    throw err;
  }
}

/** The render's file in one piece, for signing (its last revision goes after all of it). */
function joined(result: FillResult): Uint8Array {
  return result.chunks ? Buffer.concat(result.chunks) : result.bytes;
}

/** The render's chunks (base + update) when the engine kept them apart, written without joining them. */
async function writeResult(file: string, result: FillResult): Promise<void> {
  await writeFile(file, result.chunks ?? [result.bytes]);
}

/**
 * Render workers by default. Measured on 2 cores (200 rows of a 2-page form): in-process 8.4 s, one
 * worker 13.9 s, two 20.6 s; a pool costs ~3-4 s to start (fork, bundle, each worker preparing the
 * template) and IPC per row, and this process still reads, validates and writes. So: in-process on
 * 2 cores or for small batches; on more cores a large batch gets one worker per core but one.
 */
const POOL_MIN_ROWS = 500;

function defaultWorkers(rows: number): number {
  const cores = os.availableParallelism();
  return cores > 2 && rows >= POOL_MIN_ROWS ? cores - 1 : 0;
}

async function createEngine(workers: number): Promise<RenderEngine> {
  if (workers === 0) {
    const { inProcessEngine } = await import('../adapters/engine/in-process-engine.js');
    // One template: a cache of one prepared template is all a batch needs.
    return inProcessEngine(DEFAULT_LIMITS, { templateEntries: 1, templateMb: 512 });
  }
  const { createPoolEngine } = await import('../adapters/engine/pool-engine.js');
  // Offline, nobody waits on an answer: the queue is bounded by forEachLimited, not by a wait budget.
  return createPoolEngine({ size: workers, maxWaitMs: 24 * 3600_000 });
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
