// One form's analysis in a fresh process, as a render worker meets it. `time`: the first call (pdf.js
// not yet loaded, nothing optimised), then warm calls. `memory` (another fresh process; the parent
// passes --expose-gc so each figure follows a full GC): RSS with the engine loaded, then with pdf.js
// loaded too (what a worker keeps once it has analysed anything), then after five analyses.
// Receives its job over IPC, answers once.
import { readFileSync } from 'node:fs';
import { analyse } from '../src/pdf/analysis/analyse.js';
import { loadPdfjs } from '../src/pdf/analysis/pdfjs-loader.js';
import { timeIt, type Summary, type TimeOptions } from './stats.js';

export interface AnalysisJob {
  pdf: string;
  mode: 'time' | 'memory';
  timing: TimeOptions;
}

export interface AnalysisTimes {
  fields: number;
  firstMs: number;
  warm: Summary;
}

/** MiB after a full GC */
export interface AnalysisMemory {
  engine: number;
  pdfjs: number;
  analysed: number;
}

const rss = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

async function times(bytes: Uint8Array, timing: TimeOptions): Promise<AnalysisTimes> {
  const t = performance.now();
  const first = await analyse(bytes);
  const firstMs = performance.now() - t;
  return { fields: first.fields.length, firstMs, warm: await timeIt(() => analyse(bytes), timing) };
}

async function memory(bytes: Uint8Array): Promise<AnalysisMemory> {
  const engine = rss();
  await loadPdfjs();
  const pdfjs = rss();
  for (let i = 0; i < 5; i++) await analyse(bytes);
  return { engine, pdfjs, analysed: rss() };
}

process.once('message', async (job: AnalysisJob) => {
  const bytes = new Uint8Array(readFileSync(job.pdf));
  const answer = job.mode === 'time' ? await times(bytes, job.timing) : await memory(bytes);
  process.send!(answer, () => process.exit(0));
});
