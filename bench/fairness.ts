// Issue 27, "one tenant must not starve the others": a victim account renders a small corpus form at
// concurrency 2, alone and then while another account hammers the same server process with 4 loops of
// one attack at a time: (a) a decompression bomb (uploads, refused; renders and previews of a bomb stored
// before the upload check existed), (b) renders and previews of a letter + 99,999 combining marks,
// (c) 300 events to a webhook endpoint that accepts connections and never answers. In (c) the victim also
// has an endpoint on a receiver that answers at once: its delivery latency is measured too.
// Each scenario has its own baseline, the mean of a window just before and one just after the hammer, so
// a machine whose load drifts (2 shared cores) compares like with like.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { lineAndMultiLineForm, nestedFlateBomb } from '../test/helpers/hostile-pdfs.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { summarise, type Summary } from './stats.js';

const FAIRNESS_FORM = 'irs-fw9-2018.pdf';
/** Another account's renders keep at least this share of their rate under any hammer (issue 27). */
const MIN_RATIO = 0.8;
/** The victim's webhook delivery arrives within this long of its event while a dead endpoint is flooded. */
const MAX_DELIVERY_MS = 5000;
const VICTIM_CONCURRENCY = 2;
const HAMMER_LOOPS = 4;
const DEAD_EVENTS = 300;
/** How often the victim sends itself a webhook.test event during the webhook scenario. */
const VICTIM_EVENT_EVERY_MS = 500;
/** How long to wait, after a window, for victim deliveries still on their way. */
const DELIVERY_WAIT_MS = 30_000;

/** CPU seconds of the server's main process and of its render workers over one window. */
export interface ServerCpu {
  main: number;
  workers: number;
}

/**
 * CPU seconds over one window: the server's (main, workers), this bench process's (the clients of both
 * accounts) and the machine's idle time (all cores), to tell whose CPU a slower victim lost.
 */
export interface WindowCpu extends ServerCpu {
  bench: number;
  idle: number;
}

export interface FairnessRow {
  scenario: string;
  /** where the CPU went while hammered (the worker pool's shares cover the workers only) */
  cpu: WindowCpu;
  /** the same while the victim was alone (mean of the windows before and after) */
  cpuAlone: WindowCpu;
  alone: number;
  hammered: number;
  /** the hammer's answers by operation and HTTP status (count, mean ms), to show what it got */
  hammer: Record<string, { n: number; ms: number }>;
  victimFailed: number;
}

export interface DeliveryLatency {
  sent: number;
  /** ms from the request that made each event to its receipt; missing ones are not in it */
  latency: Summary;
}

export interface FairnessBench {
  form: string;
  seconds: number;
  workers: string;
  /** the machine's 1-minute load average when the bench started and when it ended */
  load: [number, number];
  rows: FairnessRow[];
  webhookAlone?: DeliveryLatency;
  webhookHammered?: DeliveryLatency;
}

type Auth = { authorization: string };
const auth = (key: string): Auth => ({ authorization: `Bearer ${key}` });

async function call(
  base: string,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: body === undefined ? auth(key) : { ...auth(key), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined; // a preview answers the PDF itself
  }
  return { status: res.status, json };
}

async function upload(
  base: string,
  key: string,
  bytes: Uint8Array,
  name: string,
): Promise<{ status: number; json: any }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${base}/v1/templates`, { method: 'POST', headers: auth(key), body: form });
  return { status: res.status, json: await res.json() };
}

async function uploadOk(base: string, key: string, bytes: Uint8Array, name: string): Promise<string> {
  const res = await upload(base, key, bytes, name);
  if (res.status !== 201) throw new Error(`upload of ${name}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data.id as string;
}

/**
 * `n` concurrent loops of `step(loop, i)` until `until()` says stop; answers counted by what `step`
 * names them (an operation and its HTTP status), with the mean ms of each.
 */
async function loops(
  n: number,
  until: () => boolean,
  step: (loop: number, i: number) => Promise<string>,
): Promise<Record<string, { n: number; ms: number }>> {
  const answers: Record<string, { n: number; ms: number }> = {};
  await Promise.all(
    Array.from({ length: n }, async (_, loop) => {
      for (let i = 0; !until(); i++) {
        const t = performance.now();
        const what = await step(loop, i).catch(() => 'no answer');
        const a = (answers[what] ??= { n: 0, ms: 0 });
        a.ms += (performance.now() - t - a.ms) / ++a.n; // running mean
      }
    }),
  );
  return answers;
}

/** The victim: VICTIM_CONCURRENCY loops of flattened renders for `seconds`; renders/s that succeeded. */
async function victimWindow(
  base: string,
  key: string,
  body: unknown,
  seconds: number,
): Promise<{ rate: number; failed: number }> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const answers = await loops(
    VICTIM_CONCURRENCY,
    () => performance.now() >= end,
    async () => String((await call(base, key, 'POST', '/v1/renders', body)).status),
  );
  const elapsed = (performance.now() - start) / 1000;
  const ok = answers['201']?.n ?? 0;
  const failed = Object.entries(answers).reduce((n, [s, a]) => (s === '201' ? n : n + a.n), 0);
  return { rate: ok / elapsed, failed };
}

/** utime + stime of a process, in seconds; 0 when it is gone. */
function cpuSeconds(pid: number | string): number {
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ, 100 on Linux)
  } catch {
    return 0;
  }
}

/** CPU seconds of the server process and of its children (the render workers) so far. */
function serverCpu(pid: number): ServerCpu {
  let workers = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) workers += cpuSeconds(p);
    } catch {
      /* gone */
    }
  }
  return { main: cpuSeconds(pid), workers };
}

/** Idle seconds of the whole machine so far (idle + iowait of all cores, /proc/stat). */
function machineIdle(): number {
  const f = readFileSync('/proc/stat', 'latin1').split('\n')[0]!.trim().split(/\s+/);
  return (Number(f[4]) + Number(f[5])) / 100;
}

function windowCpuNow(pid: number): WindowCpu {
  const u = process.cpuUsage();
  return { ...serverCpu(pid), bench: (u.user + u.system) / 1e6, idle: machineIdle() };
}

/** `f`'s result and the CPU seconds spent while it ran. */
async function withCpu<T>(pid: number, f: () => Promise<T>): Promise<{ value: T; cpu: WindowCpu }> {
  const a = windowCpuNow(pid);
  const value = await f();
  const b = windowCpuNow(pid);
  return {
    value,
    cpu: { main: b.main - a.main, workers: b.workers - a.workers, bench: b.bench - a.bench, idle: b.idle - a.idle },
  };
}

const meanCpu = (a: WindowCpu, b: WindowCpu): WindowCpu => ({
  main: (a.main + b.main) / 2,
  workers: (a.workers + b.workers) / 2,
  bench: (a.bench + b.bench) / 2,
  idle: (a.idle + b.idle) / 2,
});

/** Text values for the victim's form: every text field gets a short value within its length limit. */
function victimData(schema: { fields: { name: string; type: string; maxLength?: number | null }[] }) {
  const data: Record<string, string> = {};
  for (const f of schema.fields)
    if (f.type === 'text') data[f.name] = 'Ada Lovelace 42'.slice(0, f.maxLength ?? undefined);
  return data;
}

/**
 * The state a bomb uploaded before the upload check existed leaves behind: a harmless template of the same
 * shape (1 MiB of zeros), whose stored file is then replaced by the 2 GiB bomb (the filesystem blob store
 * keeps each file as it was uploaded, so it is found by its bytes).
 */
async function storedBomb(server: ServerProcess, key: string): Promise<string> {
  const harmless = await nestedFlateBomb('page', 1 / 1024);
  const id = await uploadOk(server.base, key, harmless, 'zeros.pdf');
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && readFileSync(p).equals(harmless)) found.push(p);
    }
  };
  walk(server.dataDir);
  if (found.length !== 1) throw new Error(`the stored file of the bomb template: ${found.length} candidates`);
  writeFileSync(found[0]!, await nestedFlateBomb('page'));
  return id;
}

interface Receiver {
  url: string;
  /** when (Date.now()) each event was first received, by event id */
  received: Map<string, number>;
  close(): Promise<void>;
}

/** A webhook receiver: `answer` false holds every request open and never answers. */
async function receiver(answer: boolean): Promise<Receiver> {
  const received = new Map<string, number>();
  const server = http.createServer((req, res) => {
    if (!answer) return; // accepted, read, never answered: the attempt runs into the sender's timeout
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
        if (!received.has(event.id)) received.set(event.id, now);
      } catch {
        /* not an event */
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function endpoint(base: string, key: string, url: string, events: string[]): Promise<string> {
  const res = await call(base, key, 'POST', '/v1/webhook-endpoints', { url, events });
  if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data.id as string;
}

/** Victim test events every VICTIM_EVENT_EVERY_MS while `busy` runs, then their delivery latencies. */
async function victimDeliveries(
  base: string,
  key: string,
  endpointId: string,
  good: Receiver,
  busy: Promise<unknown>,
): Promise<DeliveryLatency> {
  let done = false;
  const sent = new Map<string, number>();
  const ticker = (async () => {
    while (!done) {
      const at = Date.now();
      const res = await call(base, key, 'POST', `/v1/webhook-endpoints/${endpointId}/test`);
      // the 202 answers the queued delivery; its event id is what the receiver sees as `id`
      const eventId = res.json?.data?.eventId as string | undefined;
      if (eventId) sent.set(eventId, at);
      await new Promise((r) => setTimeout(r, VICTIM_EVENT_EVERY_MS));
    }
  })();
  await busy;
  done = true;
  await ticker;
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  const missing = () => [...sent.keys()].some((id) => !good.received.has(id));
  while (Date.now() < deadline && missing()) await new Promise((r) => setTimeout(r, 100));
  return {
    sent: sent.size,
    latency: summarise([...sent].flatMap(([id, at]) => (good.received.has(id) ? [good.received.get(id)! - at] : []))),
  };
}

export async function benchFairness(
  repoRoot: string,
  corpus: string,
  seconds: number,
  log: (msg: string) => void,
): Promise<FairnessBench> {
  const workers = process.env.BENCH_RENDER_WORKERS;
  const server = await startServerProcess(repoRoot, {
    accounts: ['victim', 'hammer'],
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', ...(workers ? { RENDER_WORKERS: workers } : {}) },
    tmpPrefix: 'formcast-bench-fairness-',
  });
  const { base } = server;
  const [victim, hammer] = server.keys as [string, string];
  const good = await receiver(true);
  const dead = await receiver(false);
  const result: FairnessBench = {
    form: FAIRNESS_FORM,
    seconds,
    workers: workers ?? 'default',
    load: [os.loadavg()[0]!, Number.NaN],
    rows: [],
  };
  try {
    const formBytes = new Uint8Array(readFileSync(path.join(corpus, 'pdfs', FAIRNESS_FORM)));
    const victimTpl = await uploadOk(base, victim, formBytes, FAIRNESS_FORM);
    const schema = (await call(base, victim, 'GET', `/v1/templates/${victimTpl}/schema`)).json.data.schema;
    const renderBody = { templateId: victimTpl, data: victimData(schema), options: { flatten: true } };
    // warm the workers on the victim's template (a worker's first renders of a template prepare it)
    await victimWindow(base, victim, renderBody, 1);

    const scenario = async (
      name: string,
      hammerLoops: (until: () => boolean) => Promise<Record<string, { n: number; ms: number }>>,
    ) => {
      log(`fairness: ${name}: the victim alone for ${seconds} s`);
      const window = () => withCpu(server.pid, () => victimWindow(base, victim, renderBody, seconds));
      const before = await window();
      log(`fairness: ${name}: the victim under the hammer for ${seconds} s`);
      let stop = false;
      const hammering = hammerLoops(() => stop);
      // a worker that ends inside the window takes its CPU time with it: the figures are a lower bound
      const under = await window();
      stop = true;
      const hammer = await hammering;
      log(`fairness: ${name}: the victim alone again for ${seconds} s`);
      const after = await window();
      const alone = {
        rate: (before.value.rate + after.value.rate) / 2,
        failed: before.value.failed + after.value.failed,
      };
      const cpuAlone = meanCpu(before.cpu, after.cpu);
      log(
        `  alone ${alone.rate.toFixed(1)}/s, hammered ${under.value.rate.toFixed(1)}/s, hammer: ${answersText(hammer)}; ` +
          `CPU s alone ${cpuText(cpuAlone)}, hammered ${cpuText(under.cpu)}`,
      );
      result.rows.push({
        scenario: name,
        alone: alone.rate,
        hammered: under.value.rate,
        hammer,
        cpu: under.cpu,
        cpuAlone,
        victimFailed: alone.failed + under.value.failed,
      });
    };

    // (a) a decompression bomb: uploads (refused at upload) and a stored one rendered and previewed
    const bombBytes = await nestedFlateBomb('page');
    const bombTpl = await storedBomb(server, hammer);
    await scenario('decompression bomb (upload; render + preview of a stored one)', (until) =>
      loops(HAMMER_LOOPS, until, async (_loop, i) => {
        const what = i % 3;
        if (what === 0) return `upload ${(await upload(base, hammer, bombBytes, 'bomb.pdf')).status}`;
        const body = { templateId: bombTpl, data: { name: 'x' }, options: { flatten: true } };
        if (what === 1) return `render ${(await call(base, hammer, 'POST', '/v1/renders', body)).status}`;
        const data = { data: { name: 'x' } };
        return `preview ${(await call(base, hammer, 'POST', `/v1/templates/${bombTpl}/preview`, data)).status}`;
      }),
    );

    // (b) a letter + 99,999 combining marks, rendered and previewed in one-line and multi-line fields
    const marksTpl = await uploadOk(base, hammer, lineAndMultiLineForm(), 'marks.pdf');
    const tower = `a${'\u0301'.repeat(99_999)}`;
    await scenario('a letter + 99,999 combining marks (render + preview)', (until) =>
      loops(HAMMER_LOOPS, until, async (loop, i) => {
        const data = { [loop % 2 ? 'multi' : 'one']: tower };
        if (i % 2)
          return `preview ${(await call(base, hammer, 'POST', `/v1/templates/${marksTpl}/preview`, { data })).status}`;
        const body = { templateId: marksTpl, data, options: { flatten: true } };
        return `render ${(await call(base, hammer, 'POST', '/v1/renders', body)).status}`;
      }),
    );

    // (c) 300 events to an endpoint that never answers; the victim's own endpoint answers at once
    // subscribed to an event the bench never causes: its only deliveries are the webhook.test events
    // (sent to the endpoint whatever it subscribes to), not one per victim render
    const victimHook = await endpoint(base, victim, good.url, ['template.deleted']);
    const deadHook = await endpoint(base, hammer, dead.url, ['*']);
    log('fairness: webhook delivery latency of the victim alone');
    result.webhookAlone = await victimDeliveries(
      base,
      victim,
      victimHook,
      good,
      new Promise((r) => setTimeout(r, seconds * 1000)),
    );
    let events = 0;
    let busy: Promise<unknown> = Promise.resolve();
    await scenario(`${DEAD_EVENTS} events to a webhook endpoint that never answers`, (until) => {
      const flood = loops(
        HAMMER_LOOPS,
        () => until() || events >= DEAD_EVENTS,
        async () => {
          events++;
          return `event ${(await call(base, hammer, 'POST', `/v1/webhook-endpoints/${deadHook}/test`)).status}`;
        },
      );
      // the victim's events go out while the dead endpoint's deliveries are due and hold their slots
      busy = victimDeliveries(base, victim, victimHook, good, new Promise((r) => setTimeout(r, seconds * 1000)));
      return flood;
    });
    result.webhookHammered = (await busy) as DeliveryLatency;
    result.load[1] = os.loadavg()[0]!;
    return result;
  } finally {
    await server.close();
    await good.close();
    await dead.close();
  }
}

const rate = (n: number) => n.toFixed(n < 10 ? 2 : 1);

const cpuText = (c: WindowCpu) => [c.main, c.workers, c.bench, c.idle].map((n) => n.toFixed(1)).join(' / ');

/** "render 422: 80 × 41 ms, …": what the hammer got, how often and how long each took. */
function answersText(answers: Record<string, { n: number; ms: number }>): string {
  return Object.entries(answers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([what, a]) => `${what}: ${a.n} × ${a.ms.toFixed(0)} ms`)
    .join(', ');
}

/** The fairness table: one row per scenario, then the webhook latency row. */
export function fairnessTable(b: FairnessBench): string {
  const lines = [
    `| hammer (another account, ${HAMMER_LOOPS} loops) | victim renders/s alone | under hammer | ratio | hammer's answers (count × mean) | CPU s alone: server main / workers / bench / machine idle | CPU s under hammer: same | ≥ ${MIN_RATIO * 100} % |`,
    '|---|--:|--:|--:|---|--:|--:|---|',
  ];
  for (const r of b.rows) {
    const ratio = r.hammered / r.alone;
    const failed = r.victimFailed ? ` (victim: ${r.victimFailed} failed)` : '';
    lines.push(
      `| ${r.scenario} | ${rate(r.alone)} | ${rate(r.hammered)} | ${(100 * ratio).toFixed(0)} % | ${answersText(r.hammer)} | ${cpuText(r.cpuAlone)} | ${cpuText(r.cpu)} | ${ratio >= MIN_RATIO && !r.victimFailed ? 'PASS' : 'MISS'}${failed} |`,
    );
  }
  const w = b.webhookHammered;
  if (w) {
    const a = b.webhookAlone;
    const got = w.latency.n;
    const ok = got === w.sent && got > 0 && w.latency.max <= MAX_DELIVERY_MS;
    lines.push(
      '',
      `| victim's webhook deliveries (webhook.test every ${VICTIM_EVENT_EVERY_MS} ms) | received | median ms | p95 ms | max ms | within ${MAX_DELIVERY_MS / 1000} s |`,
      '|---|--:|--:|--:|--:|---|',
    );
    if (a)
      lines.push(
        `| alone | ${a.latency.n}/${a.sent} | ${a.latency.median.toFixed(0)} | ${a.latency.p95.toFixed(0)} | ${a.latency.max.toFixed(0)} | |`,
      );
    lines.push(
      `| while ${DEAD_EVENTS} events wait for an endpoint that never answers | ${got}/${w.sent} | ${w.latency.median.toFixed(0)} | ${w.latency.p95.toFixed(0)} | ${w.latency.max.toFixed(0)} | ${ok ? 'PASS' : 'MISS'} |`,
    );
  }
  lines.push(
    '',
    `victim: ${FAIRNESS_FORM}, flattened, concurrency ${VICTIM_CONCURRENCY}, ${b.seconds} s per window, baseline = mean of a window alone just before and just after each hammer; server RENDER_WORKERS=${b.workers}; 1-minute load average ${b.load[0].toFixed(2)} at the start, ${b.load[1].toFixed(2)} at the end (${os.availableParallelism()} cores).`,
  );
  return lines.join('\n');
}
