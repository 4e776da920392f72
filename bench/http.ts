// The service end to end: a real server (SQLite in a temp DATA_DIR, default render worker pool) started
// in this process on 127.0.0.1, a Business account whose quota a PLANS_FILE lifts out of the way, the
// bench's requests (uploads, warm-up renders, downloads) from a client child process and autocannon
// (another child) driving POST /v1/renders. Peak RSS is sampled here every 20 ms: this process (HTTP +
// DB, nothing of the client) plus its render worker processes.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createRuntime, type Runtime } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { tuneServerHeap } from '../src/heap-tuning.js';
import { createAccount } from '../src/modules/accounts/accounts.js';
import type { BurstResult, ClientCalls } from './client-child.js';
import { childScript, forkRpc, type RpcChild } from './child-rpc.js';
import type { LoadAnswer, LoadJob } from './load-child.js';
import { summarise, type Summary } from './stats.js';

export interface BenchServer {
  url: string;
  key: string;
  runtime: Runtime;
  app: FastifyInstance;
  close(): Promise<void>;
}

const BIG = 1_000_000_000;

/** `baseDir`: where the server's data folder (database and files) is made. */
export async function startBenchServer(env: Record<string, string> = {}, baseDir = tmpdir()): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(baseDir, 'formcast-bench-'));
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
  tuneServerHeap(); // as `formcast serve` does: this process is the server
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

// ---- the bench's own HTTP client, in a child process (see client-child.ts) ---------------------------

export type BenchClient = RpcChild<ClientCalls>;

export function startBenchClient(): Promise<BenchClient> {
  return forkRpc<ClientCalls>('client-child');
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

/** A process's resident memory in bytes, whole and split: anonymous (+ shared memory) pages, file pages. */
function rssOf(pid: number): { rss: number; anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') + kb('RssShmem'), file: kb('RssFile') };
  } catch {
    return { rss: 0, anon: 0, file: 0 };
  }
}

export interface RssPeak {
  /** this process alone (HTTP server, DB, pool bookkeeping) */
  mainMb: number;
  /** this process + render workers, summed at the same instant */
  totalMb: number;
  /**
   * The same processes with the pages of files (the node binary, its libraries: the same pages in every
   * process) counted once: each one's anonymous memory, plus the largest one's file pages. What the group
   * costs the machine, where the RSS sum counts the node binary once per process.
   */
  footprintMb: number;
}

/** Samples every 20 ms until stop(); the bench's own children (its clients, not the server) are excluded. */
export function sampleRss(exclude: number[]): { stop(): RssPeak } {
  let main = 0;
  let total = 0;
  let footprint = 0;
  const tick = () => {
    const all = [process.pid, ...childPids(process.pid).filter((p) => !exclude.includes(p))].map(rssOf);
    main = Math.max(main, all[0].rss);
    total = Math.max(
      total,
      all.reduce((sum, m) => sum + m.rss, 0),
    );
    footprint = Math.max(footprint, all.reduce((sum, m) => sum + m.anon, 0) + Math.max(...all.map((m) => m.file)));
  };
  tick();
  const timer = setInterval(tick, 20);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { mainMb: main / 1_048_576, totalMb: total / 1_048_576, footprintMb: footprint / 1_048_576 };
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

/** autocannon at `connections` for `seconds`, POST /v1/renders with `body`; `client` is left out of the RSS. */
export async function benchLoad(
  server: BenchServer,
  client: BenchClient,
  body: string,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const { file, execArgv } = childScript('load-child');
  const child: ChildProcess = fork(file, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const sampler = sampleRss([client.pid, child.pid!]);
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
  // It exits once it has answered: wait, or the next run's sampler (which excludes only its own load
  // child) would count this one's ~70 MB as the server's while it is still exiting.
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000); // a child that hangs must not stall the bench
    await exited;
    clearTimeout(timer);
  }
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

/**
 * A new Pro account uploads the form and fires `count` renders at once (one client, no pacing):
 * all of them should be admitted, since they fit within the render queue's wait budget.
 */
export async function benchBurst(
  server: BenchServer,
  client: BenchClient,
  file: string,
  data: Record<string, unknown>,
  count: number,
): Promise<BurstResult> {
  const { apiKey } = await createAccount(server.runtime, { name: 'burst', plan: 'Pro' });
  return client.call('burst', { url: server.url, key: apiKey, file, data, count });
}
