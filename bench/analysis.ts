// Template analysis (fields, page captions, suggested keys) of five corpus forms, each in a fresh child
// process: the first call there loads pdf.js and meets cold code, as the first upload a render worker
// analyses does; the warm median is a worker's steady state. The targets compare with the analysis
// before page captions (issue 21: in-process, warm, median of 5, quiet machine).
import { fork } from 'node:child_process';
import path from 'node:path';
import type { AnalysisJob, AnalysisMemory, AnalysisTimes } from './analysis-child.js';
import { childScript } from './child-rpc.js';
import { workerFlags } from './engine-process.js';
import type { TimeOptions } from './stats.js';

/** Warm median before pdf.js text was read (ms, measured on the bench machine, quiet), by form. */
const ANALYSIS_FORMS: Record<string, number> = {
  'uscourts-b107-financial-affairs.pdf': 87,
  'us-dos-ds11-passport-application.pdf': 29,
  'canada-cra-cannabis-duty-return.pdf': 56,
  'france-cerfa-10103-14-contrat-apprentissage.pdf': 29,
  'irs-fw9-2018.pdf': 12,
};
/** Warm analysis at most this many times the one before page captions. */
export const WARM_FACTOR = 1.3;
/** The first analysis in a process at most this much slower than a warm one (ms). */
export const FIRST_CALL_EXTRA_MS = 400;

export interface AnalysisRow extends Partial<AnalysisTimes> {
  file: string;
  beforeMs: number;
  rssMb?: AnalysisMemory;
  error?: string;
}

function runOne<T>(job: AnalysisJob): Promise<T> {
  const { file, execArgv } = childScript('analysis-child');
  // a render worker's young generation, so the RSS is a worker's
  const flags = [...execArgv, ...workerFlags(), ...(job.mode === 'memory' ? ['--expose-gc'] : [])];
  const proc = fork(file, [], { execArgv: flags, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve(m as T));
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`analysis child exited with ${code}`)));
    proc.send(job);
  });
}

export async function benchAnalysis(
  pdfDir: string,
  timing: TimeOptions,
  log: (m: string) => void,
): Promise<AnalysisRow[]> {
  const rows: AnalysisRow[] = [];
  for (const [file, beforeMs] of Object.entries(ANALYSIS_FORMS)) {
    log(`analysis: ${file}`);
    try {
      const pdf = path.join(pdfDir, file);
      const times = await runOne<AnalysisTimes>({ pdf, mode: 'time', timing });
      rows.push({ file, beforeMs, ...times, rssMb: await runOne<AnalysisMemory>({ pdf, mode: 'memory', timing }) });
    } catch (err) {
      rows.push({ file, beforeMs, error: (err as Error).message });
    }
  }
  return rows;
}
