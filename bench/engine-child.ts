// Child process in which the bench times our engine in-process (fill, fill+flatten, the corpus table):
// started with a render worker's Node flags (engine-process.ts), so its young generation and heap are
// the ones a render meets in the service, whatever flags the bench's own process (the server's) has.
import { readFileSync } from 'node:fs';
import type { FillValue, TemplateAnalysis } from '../src/pdf/types.js';
import { serveCalls } from './child-rpc.js';
import type { CorpusRow } from './corpus.js';
import type { FloorResult } from './floor.js';
import type { InProcessResult } from './in-process.js';
import type { TimeOptions } from './stats.js';

/** What the engine child can be asked to do, with its arguments and answer. */
export interface EngineCalls {
  /** benchInProcess() on the template at `pdf` */
  inProcess: {
    args: {
      pdf: string;
      analysis: TemplateAnalysis;
      values: Record<string, FillValue>;
      timing: TimeOptions;
      cacheKey: string;
    };
    result: InProcessResult;
  };
  /** benchFloor(): pdf-lib's load+save of the template and a plain copy, outputs in `dir` */
  floor: { args: { pdf: string; dir: string; timing: TimeOptions }; result: FloorResult };
  /** benchCorpus() on these files, outputs in `work` */
  corpus: {
    args: { pdfs: string[]; work: string; timing: TimeOptions; pdftk?: TimeOptions; repoRoot: string };
    result: CorpusRow[];
  };
}

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

serveCalls<EngineCalls>({
  async inProcess({ pdf, analysis, values, timing, cacheKey }) {
    const { benchInProcess } = await import('./in-process.js');
    return benchInProcess(new Uint8Array(readFileSync(pdf)), analysis, values, timing, cacheKey);
  },
  async floor({ pdf, dir, timing }) {
    const { benchFloor } = await import('./floor.js');
    return benchFloor(pdf, new Uint8Array(readFileSync(pdf)), dir, timing);
  },
  async corpus({ pdfs, work, timing, pdftk, repoRoot }) {
    const { benchCorpus } = await import('./corpus.js');
    return benchCorpus(pdfs, work, timing, pdftk, log, repoRoot);
  },
});
