// The service end to end: a real server (SQLite in a temp DATA_DIR, default render worker pool) started
// in this process on 127.0.0.1, a Business account whose quota a PLANS_FILE lifts out of the way, and
// autocannon (in a child process) driving POST /v1/renders. Peak RSS is sampled here every 20 ms:
// this process (HTTP + DB) plus its render worker processes.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createRuntime, type Runtime } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createAccount } from '../src/modules/accounts/accounts.js';
import type { LoadAnswer, LoadJob } from './load-child.js';
import { summarise, timeIt, type Summary, type TimeOptions } from './stats.js';

export interface BenchServer {
  url: string;
  key: string;
  runtime: Runtime;
  app: FastifyInstance;
  close(): Promise<void>;
}

const BIG = 1_000_000_000;

export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-bench-'));
  const plansFile = path.join(dataDir, 'plans.json');
  // quota and rate limit must never be what the bench measures
  writeFileSync(
    plansFile,
    JSON.stringify({ Business: { rendersPerMonth: BIG, requestsPerMinute: BIG, templates: 100_000 } }),
  );
  const config = loadConfig({
    DATA_DIR: dataDir,
    PLANS_FILE: plansFile,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    DOWNLOAD_URL_SECONDS: '86400', // the download bench runs after every form's loads
    ...env,
  });
  const runtime = await createRuntime(config);
  const app = await buildApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  runtime.config.publicUrl = url; // download links must carry the port we got
  const { apiKey } = await createAccount(runtime, { name: 'bench', plan: 'Business' });
  return {
    url,
    key: apiKey,
    runtime,
    app,
    async close() {
      // The pool unrefs idle workers, so while it waits for their 'exit' nothing keeps the event loop
      // alive and Node would quit mid-close (silently, exit code 0): hold it open until done.
      const keepAlive = setInterval(() => {}, 1000);
      try {
        await app.close();
        await runtime.close();
      } finally {
        clearInterval(keepAlive);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function call(server: BenchServer, method: string, p: string, body?: string | FormData, contentType?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${server.key}` };
  if (contentType) headers['content-type'] = contentType;
  const res = await fetch(server.url + p, { method, headers, body });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

/** POST /v1/templates (upload + analysis + storage), timed; returns the last template's id. */
export async function benchUpload(
  server: BenchServer,
  bytes: Uint8Array,
  fileName: string,
  opts: TimeOptions,
): Promise<{ stats: Summary; templateId: string }> {
  let templateId = '';
  const upload = async () => {
    const form = new FormData();
    form.append('name', fileName);
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), fileName);
    templateId = String((await call(server, 'POST', '/v1/templates', form)).data.id);
  };
  const stats = await timeIt(upload, { ...opts, iterations: Math.min(opts.iterations, 10), warmup: 1 });
  return { stats, templateId };
}

export function renderBody(templateId: string, data: Record<string, unknown>, flatten: boolean): string {
  return JSON.stringify({ templateId, data, options: { flatten, locale: 'en-US', timezone: 'UTC' } });
}

export interface RenderOnce {
  downloadUrl: string;
  warnings: string[];
}

export async function renderOnce(server: BenchServer, body: string): Promise<RenderOnce> {
  const { data } = await call(server, 'POST', '/v1/renders', body, 'application/json');
  return { downloadUrl: String(data.downloadUrl), warnings: (data.warnings as string[]) ?? [] };
}

/** GET of one download link at concurrency 1; also returns the bytes (for qpdf). */
export async function benchDownload(
  downloadUrl: string,
  opts: TimeOptions,
): Promise<{ stats: Summary; bytes: Uint8Array }> {
  let bytes = new Uint8Array();
  const get = async () => {
    const res = await fetch(downloadUrl);
    if (res.status !== 200) throw new Error(`GET download: HTTP ${res.status}`);
    bytes = new Uint8Array(await res.arrayBuffer());
  };
  const stats = await timeIt(get, opts);
  return { stats, bytes };
}

// ---- resident memory: this process + its children (render workers), from /proc ------------------

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface RssPeak {
  /** this process alone (HTTP server, DB, pool bookkeeping) */
  mainMb: number;
  /** this process + render workers, summed at the same instant */
  totalMb: number;
}

/** Samples every 20 ms until stop(); the load child is excluded (it is the client, not the server). */
export function sampleRss(excludePid?: number): { stop(): RssPeak } {
  let main = 0;
  let total = 0;
  const tick = () => {
    const own = process.memoryUsage().rss;
    const kids = childPids(process.pid)
      .filter((p) => p !== excludePid)
      .reduce((sum, p) => sum + rssOf(p), 0);
    main = Math.max(main, own);
    total = Math.max(total, own + kids);
  };
  tick();
  const timer = setInterval(tick, 20);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { mainMb: main / 1_048_576, totalMb: total / 1_048_576 };
    },
  };
}

// ---- load --------------------------------------------------------------------------------------

export interface LoadResult {
  connections: number;
  latency: Summary;
  rps: number;
  ok: number;
  failed: number;
  statusCodes: Record<number, number>;
  rss: RssPeak;
}

// Compiled (npm run bench) the child is plain JavaScript; run from sources it needs tsx.
const LOAD_CHILD_JS = fileURLToPath(new URL('./load-child.js', import.meta.url));
const compiled = existsSync(LOAD_CHILD_JS);
const LOAD_CHILD = compiled ? LOAD_CHILD_JS : fileURLToPath(new URL('./load-child.ts', import.meta.url));

/** autocannon at `connections` for `seconds`, POST /v1/renders with `body`. */
export async function benchLoad(
  server: BenchServer,
  body: string,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const child: ChildProcess = fork(LOAD_CHILD, [], {
    execArgv: compiled ? [] : ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const sampler = sampleRss(child.pid);
  const answer = await new Promise<LoadAnswer>((resolve, reject) => {
    child.once('message', (m: LoadAnswer | { error: string }) =>
      'error' in m ? reject(new Error(`autocannon: ${m.error}`)) : resolve(m),
    );
    child.once('exit', (code) => reject(new Error(`load child exited with ${code}`)));
    const job: LoadJob = {
      url: `${server.url}/v1/renders`,
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body,
      connections,
      seconds,
    };
    child.send(job);
  });
  const rss = sampler.stop();
  return {
    connections,
    latency: summarise(answer.latencies),
    rps: answer.ok / answer.seconds,
    ok: answer.ok,
    failed: answer.non2xx + answer.errors + answer.timeouts,
    statusCodes: answer.statusCodes,
    rss,
  };
}

export interface BurstResult {
  sent: number;
  created: number;
  statusCodes: Record<string, number>;
}

/**
 * A new Pro account uploads the form and fires `count` renders at once (one client, no pacing):
 * all of them should be admitted, since they fit within the render queue's wait budget.
 */
export async function benchBurst(
  server: BenchServer,
  bytes: Uint8Array,
  data: Record<string, unknown>,
  count: number,
): Promise<BurstResult> {
  const { apiKey } = await createAccount(server.runtime, { name: 'burst', plan: 'Pro' });
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'burst.pdf');
  const up = await fetch(`${server.url}/v1/templates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  // A saturated machine can refuse the upload itself (503 while the analysis waits for a worker).
  if (!up.ok) return { sent: count, created: 0, statusCodes: { [`upload ${up.status}`]: 1 } };
  const templateId = ((await up.json()) as { data: { id: string } }).data.id;
  const body = renderBody(templateId, data, true);
  const statuses = await Promise.all(
    Array.from({ length: count }, () =>
      fetch(`${server.url}/v1/renders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body,
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      ),
    ),
  );
  const statusCodes: Record<string, number> = {};
  for (const s of statuses) statusCodes[s] = (statusCodes[s] ?? 0) + 1;
  return { sent: count, created: statuses.filter((s) => s === 201).length, statusCodes };
}
