// The jobs that read pages with pdf.js (analysis, detection) run in a thread of the render worker that
// ends when idle, so pdf.js never stays in the process that keeps prepared templates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/workers/pool.js';
import { ReaderThread, type ReaderJob } from '../../src/workers/reader-thread.js';
import { FieldEditError, PdfEngineError } from '../../src/pdf/types.js';
import type { TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();

describe.skipIf(!dir)('analysis in the reader thread', () => {
  const pool = new WorkerPool({ size: 1, timeoutMs: 60_000, maxMemoryMb: 512, maxQueue: 8, testJobs: true });
  afterAll(() => pool.close());

  it('reads captions from the page, and the worker process itself never loads pdf.js', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', 'irs-fw9-2018.pdf')));
    const analysis = await pool.run<TemplateAnalysis>({ kind: 'analyse', bytes });
    expect(analysis.fields.some((f) => f.labelSource === 'page')).toBe(true); // pdf.js did read the page
    expect(await pool.run<boolean>({ kind: 'test:pdfjs-loaded', args: [] })).toBe(false);
  });

  it('starts workers with fixed malloc thresholds, so what an ended thread freed goes back', async () => {
    expect(await pool.run({ kind: 'test:env', args: ['MALLOC_MMAP_THRESHOLD_'] })).toBe(String(4 << 20));
    expect(await pool.run({ kind: 'test:env', args: ['MALLOC_TRIM_THRESHOLD_'] })).toBe(String(1 << 20));
  });
});

/** A stand-in for the worker script: answers each job by the first byte it carries. */
const SCRIPT = `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (job) => {
  const [b] = job.bytes;
  if (b === 1) parentPort.postMessage({ ok: true, value: { kind: job.kind, length: job.bytes.length } });
  if (b === 2) parentPort.postMessage({ ok: false, kind: 'engine', code: 'INVALID_PDF', message: 'not a PDF' });
  if (b === 3) parentPort.postMessage({ ok: false, kind: 'edit', problems: [{ field: 'a', message: 'no such field' }] });
  if (b === 4) parentPort.postMessage({ ok: false, kind: 'other', name: 'RangeError', message: 'Array buffer allocation failed' });
  if (b === 5) process.exit(3);
});`;

describe('ReaderThread', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'formcast-reader-'));
  const script = path.join(tmp, 'reader.mjs');
  fs.writeFileSync(script, SCRIPT);
  const thread = new ReaderThread(script);
  afterAll(async () => {
    await thread.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const job = (...bytes: number[]): ReaderJob => ({ kind: 'analyse', bytes: new Uint8Array(bytes) });

  it("answers the thread's value", async () => {
    expect(await thread.run(job(1, 0, 0))).toEqual({ kind: 'analyse', length: 3 });
  });

  it('gives back engine errors, refused edits and allocation failures as the worker would have thrown them', async () => {
    await expect(thread.run(job(2))).rejects.toEqual(new PdfEngineError('INVALID_PDF', 'not a PDF'));
    const refused = await thread.run(job(3)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FieldEditError);
    expect((refused as FieldEditError).problems).toEqual([{ field: 'a', message: 'no such field' }]);
    await expect(thread.run(job(4))).rejects.toBeInstanceOf(RangeError);
  });

  it('fails the job of a thread that dies, and starts another for the next job', async () => {
    await expect(thread.run(job(5))).rejects.toThrow('the reader thread exited with code 3');
    expect(await thread.run(job(1))).toEqual({ kind: 'analyse', length: 1 });
  });
});
