// `npm run bench -- --peers`: every corpus form filled and flattened with the same values by us and by
// the tools teams use instead, one after the other on one machine: pdftk (a process per fill, as it is
// used), pdf-lib by hand (in this process), PyMuPDF and pypdf (in one long-lived Python process, as a
// Python service would run them). Each output is read back with pdftotext, so a peer that draws less
// does not win by it. Peers that are not installed are reported as skipped, never silently left out.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { validateData } from '../src/modules/render-data/validate-data.js';
import { analyse } from '../src/pdf/analysis/analyse.js';
import { FontLibrary } from '../src/pdf/fonts/font-library.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { threadCpuDelta, threadCpuMs } from './thread-cpu.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../src/pdf/scripts/sandbox.js';
import type { FillValue, TemplateAnalysis } from '../src/pdf/types.js';
import { generateData } from './data.js';
import { pdfLibFill } from './peer-pdf-lib.js';
import { cutProbes, heldShare, peerValues, probes, type Probe, unicodeData, type PeerValue } from './peer-values.js';
import { toXfdf } from './pdftk.js';
import { summarise, timeIt, type Summary, type TimeOptions } from './stats.js';

const run = promisify(execFile);

export const PEERS = ['ours', 'pdftk', 'pdf-lib', 'pymupdf', 'pypdf'] as const;
export type Peer = (typeof PEERS)[number];
export type Dataset = 'latin' | 'unicode';

export interface PeerRun {
  ok: boolean;
  /** how the peer fills (and flattens) */
  method?: string;
  time?: Summary;
  /** CPU time per fill, ms (this process, the pdftk children, or the Python process) */
  cpuMs?: number;
  /** share of the values a reader finds in the output's text */
  held?: number;
  /** ours only: probes whose value the render cut with a warning (too long for a fixed-size box) */
  cut?: number;
  error?: string;
  /** 1-minute load average before and after this peer's timing */
  load: [number, number];
}

export interface PeerRow {
  file: string;
  fields: number;
  dataset: Dataset;
  probes: number;
  runs: Partial<Record<Peer, PeerRun>>;
}

export interface PeerOptions {
  ours: TimeOptions;
  /** pdftk starts a JVM per fill: a few iterations are enough */
  pdftk: TimeOptions;
  /** pdf-lib and the Python peers */
  peers: TimeOptions;
  python: string;
  /** the peers to run (BENCH_PEERS); the others are reported as not selected */
  only?: readonly Peer[];
  /** how PyMuPDF flattens: its bake (by hand on 1.21) or convert_to_pdf() (BENCH_PYMUPDF_FLATTEN) */
  pymupdfFlatten?: 'bake' | 'convert';
  log: (msg: string) => void;
  /** called with the rows so far after each form */
  onForm?: (rows: PeerRow[]) => unknown;
}

/** CPU time (ms) of the children this process has waited for: /proc/self/stat cutime + cstime. */
function childCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // USER_HZ is 100 on Linux
}

const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Times fn after its warm-up; CPU per call counted over the timed calls only. With `steadyCpuMs` (the
 * in-process JavaScript peers) the warm-up lasts until the process has spent that much CPU on it, and the
 * timed calls about as much: a render worker runs long, and a few dozen sub-millisecond calls after a
 * form's first would time V8's compiler and GC threads settling (the process CPU counter includes them,
 * and on a loaded machine a second of wall time may give this process a tenth of that in CPU).
 */
async function timed(fn: () => unknown, opts: TimeOptions, cpu: () => number, steadyCpuMs = 0) {
  const c = cpu();
  let warm = 0;
  for (; warm < opts.warmup || cpu() - c < steadyCpuMs; warm++) await fn();
  const perCall = warm ? (cpu() - c) / warm : 0;
  const iterations = perCall > 0 ? Math.max(opts.iterations, Math.ceil(steadyCpuMs / perCall)) : opts.iterations;
  const maxSeconds = steadyCpuMs ? Math.max(opts.maxSeconds, 60) : opts.maxSeconds;
  const c0 = cpu();
  const t0 = threadCpuMs();
  const time = await timeIt(fn, { ...opts, iterations, maxSeconds, warmup: 0 });
  const cpuMs = (cpu() - c0) / time.n;
  // BENCH_THREADS=1: which threads the CPU per call went to (main: the fills; the others: V8's GC and compiler)
  if (process.env.BENCH_THREADS)
    console.error(`[threads] n=${time.n} cpu/call ${cpuMs.toFixed(3)}: ${threadCpuDelta(t0, threadCpuMs())}`);
  return { time, cpuMs };
}

/** CPU the in-process JavaScript peers spend warming up, and about as much timed (ms; BENCH_PEERS_STEADY_MS): 500 left most 1-2 ms forms unsettled. */
const STEADY_CPU_MS = Number(process.env.BENCH_PEERS_STEADY_MS) || 3000;
/** At least this long of timed fills for the Python peers (s): a steady CPU per fill on 1 ms forms. */
const PYTHON_MIN_SECONDS = 1;

async function pdftotext(file: string): Promise<string> {
  // bounded: a peer's output can be slow to read (it counts as holding nothing then)
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 64 * 2 ** 20, timeout: 60_000 });
  return stdout;
}

/** The long-lived Python process running bench/peers.py, one JSON job per line. */
class PythonPeers {
  private child!: ChildProcessWithoutNullStreams;
  private answers!: AsyncIterator<string>;
  constructor(
    private readonly python: string,
    private readonly script: string,
  ) {
    this.start();
  }
  private start() {
    this.child = spawn(this.python, [this.script], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.resume(); // MuPDF's warnings: drained, not shown
    this.answers = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }
  async job(job: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.child.stdin.write(`${JSON.stringify(job)}\n`);
    const line = await this.answers.next();
    if (line.done) throw new Error('the Python peer process ended');
    const answer = JSON.parse(line.value) as Record<string, unknown>;
    // a failure can leave a library's bindings broken for the next form (PyMuPDF 1.21's SWIG objects): start afresh
    if (!answer.ok) {
      this.close();
      this.start();
    }
    return answer;
  }
  close() {
    this.child.stdin.end();
  }
}

/** Whether Debian's python3 has the module (python3-fitz gives `fitz`, python3-pypdf `pypdf`). */
async function pythonHas(python: string, module: string): Promise<string | null> {
  try {
    await run(python, ['-c', `import ${module}`]);
    return null;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return code === 'ENOENT' ? `${python} not found` : `python module ${module} not installed`;
  }
}

async function hasPdftk(): Promise<boolean> {
  try {
    await run('pdftk', ['--version']);
    return true;
  } catch {
    return false;
  }
}

interface FormCase {
  file: string;
  pdf: string;
  bytes: Uint8Array;
  analysis: TemplateAnalysis;
  values: Record<string, FillValue>;
  peer: Record<string, PeerValue>;
  words: Probe[];
}

function formCases(pdf: string, bytes: Uint8Array, analysis: TemplateAnalysis): Record<Dataset, FormCase> {
  const { data } = generateData(analysis.fields);
  const make = (d: Record<string, unknown>): FormCase => {
    const { values } = validateData(analysis.fields, d, { strict: false, locale: 'en-US', timezone: 'UTC' });
    const file = path.basename(pdf);
    return { file, pdf, bytes, analysis, values, peer: peerValues(analysis, values), words: probes(analysis, values) };
  };
  return { latin: make(data), unicode: make(unicodeData(analysis, data)) };
}

export async function benchPeers(pdfs: string[], work: string, repoRoot: string, o: PeerOptions): Promise<PeerRow[]> {
  // closed at the end: with its thread left running (a form with scripts), the bench did not exit
  const sandbox = new ScriptSandbox();
  const fonts = new FontLibrary({ shapeCacheEntries: 4096 });
  const skipped: Partial<Record<Peer, string>> = {};
  for (const p of PEERS) if (o.only && !o.only.includes(p)) skipped[p] = 'not selected (BENCH_PEERS)';
  if (!skipped.pdftk && !(await hasPdftk())) skipped.pdftk = 'pdftk not installed';
  skipped.pymupdf ??= (await pythonHas(o.python, 'fitz')) ?? undefined;
  skipped.pypdf ??= (await pythonHas(o.python, 'pypdf')) ?? undefined;
  const python =
    skipped.pymupdf && skipped.pypdf ? undefined : new PythonPeers(o.python, path.join(repoRoot, 'bench/peers.py'));
  const rows: PeerRow[] = [];
  try {
    for (const pdf of pdfs) {
      const bytes = new Uint8Array(readFileSync(pdf));
      let analysis: TemplateAnalysis;
      try {
        analysis = await analyse(bytes);
      } catch {
        continue; // not a form (the API refuses it too): nothing to fill
      }
      const cases = formCases(pdf, bytes, analysis);
      // A cache per form: ours holds this form's prepared template only, as each Python fill holds only
      // its document. One cache for the whole corpus kept every earlier form's template live, and the
      // major GCs its growing heap cost were counted in the CPU per fill of the later, smaller forms.
      const cache = new TemplateCache({ maxEntries: 1, maxBytes: 512 * 1024 * 1024, fonts, sandbox });
      for (const dataset of ['latin', 'unicode'] as const) {
        const c = cases[dataset];
        o.log(`peers: ${c.file} (${dataset})`);
        const row: PeerRow = {
          file: c.file,
          fields: analysis.fields.length,
          dataset,
          probes: c.words.length,
          runs: {},
        };
        rows.push(row);
        for (const peer of PEERS) {
          if (skipped[peer]) {
            row.runs[peer] = { ok: false, error: `skipped: ${skipped[peer]}`, load: [NaN, NaN] };
            continue;
          }
          const before = os.loadavg()[0];
          const out = path.join(work, `${c.file}.${dataset}.${peer}.pdf`);
          const r = await runPeer(peer, c, out, cache, python, o).catch(
            (err: unknown): Omit<PeerRun, 'load'> => ({ ok: false, error: firstLine(err) }),
          );
          const held = r.ok && existsSync(out) ? heldShare(await pdftotext(out).catch(() => ''), c.words) : undefined;
          row.runs[peer] = { ...r, held, load: [before, os.loadavg()[0]] };
        }
      }
      o.onForm?.(rows);
    }
  } finally {
    python?.close();
    await sandbox.close();
  }
  return rows;
}

const firstLine = (err: unknown) =>
  (String((err as { stderr?: unknown }).stderr ?? '').trim() || (err as Error).message || String(err))
    .split('\n')[0]
    .slice(0, 160);

async function runPeer(
  peer: Peer,
  c: FormCase,
  out: string,
  cache: TemplateCache,
  python: PythonPeers | undefined,
  o: PeerOptions,
): Promise<Omit<PeerRun, 'load'>> {
  switch (peer) {
    case 'ours': {
      const fill = () => fillPdf(c.bytes, c.analysis, { values: c.values, flatten: true }, `peers:${c.file}`, cache);
      const first = await fill();
      writeFileSync(out, first.bytes);
      return {
        ok: true,
        cut: cutProbes(c.words, first.warnings),
        method: `fillPdf, flatten (template prepared once; ${STEADY_CPU_MS} ms of CPU warming up, as much timed)`,
        ...(await timed(fill, o.ours, processCpuMs, STEADY_CPU_MS)),
      };
    }
    case 'pdftk': {
      const xfdf = `${out}.xfdf`;
      writeFileSync(xfdf, toXfdf(c.analysis.fields, c.values));
      const fill = () => run('pdftk', [c.pdf, 'fill_form', xfdf, 'output', out, 'flatten']);
      return {
        ok: true,
        method: 'pdftk fill_form … flatten (a process per fill)',
        ...(await timed(fill, o.pdftk, childCpuMs)),
      };
    }
    case 'pdf-lib': {
      const fill = () => pdfLibFill(c.bytes, c.peer, true);
      writeFileSync(out, await fill());
      return {
        ok: true,
        method: `form.get*().set*(), form.flatten(), save() (${STEADY_CPU_MS} ms of CPU warming up, as much timed)`,
        ...(await timed(fill, o.peers, processCpuMs, STEADY_CPU_MS)),
      };
    }
    default: {
      if (!python) throw new Error('no Python');
      const a = await python.job({
        peer,
        template: c.pdf,
        out,
        values: c.peer,
        flatten: true,
        pymupdf_flatten: o.pymupdfFlatten ?? 'bake',
        iterations: o.peers.iterations,
        warmup: o.peers.warmup,
        min_seconds: PYTHON_MIN_SECONDS,
        max_seconds: o.peers.maxSeconds,
      });
      if (!a.ok) return { ok: false, error: String(a.error) };
      return {
        ok: true,
        method: `${String(a.version)}: ${String(a.method)}`,
        time: summarise(a.samples_ms as number[]),
        cpuMs: Number(a.cpu_ms),
      };
    }
  }
}
