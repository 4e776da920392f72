// Issue 27, "one tenant must not starve the others": a victim account renders a small corpus form at
// concurrency 2, alone and then while another account hammers the same server process with 4 loops of
// one attack at a time: (a) a decompression bomb (uploads, refused; renders and previews of a bomb stored
// before the upload check existed), (b) renders and previews of a letter + 99,999 combining marks,
// (c) 300 events to a webhook endpoint that accepts connections and never answers. In (c) the victim also
// has an endpoint on a receiver that answers at once: its delivery latency is measured too.
// Each scenario has its own baseline, the mean of a window just before and one just after the hammer, so
// a machine whose load drifts (2 shared cores) compares like with like. Each account's clients run in a
// child process of their own (fairness-child.ts), whose CPU is reported beside the server's.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { lineAndMultiLineForm, nestedFlateBomb } from '../test/helpers/hostile-pdfs.js';
import { type Answers, call, upload } from './fairness-calls.js';
import type { Attack, FairnessCalls } from './fairness-child.js';
import { forkRpc, type RpcChild } from './child-rpc.js';
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
/**
 * The hammer runs at least this long before the victim's window starts, and until each of its operations
 * has been answered once: the window measures a sustained attack, not the server learning it (a bomb's
 * first upload, render and preview each cost a worker its whole memory budget before the refusal is
 * remembered; on a loaded machine they took 3-4 s each, past a fixed 2 s lead-in, and filled the window).
 */
const HAMMER_LEAD_IN_MS = 2000;
/** The longest lead-in, whatever the hammer has been answered. */
const HAMMER_LEAD_IN_MAX_MS = 30_000;
/** The operations of each attack, as the hammer's client names its answers. */
const OPERATIONS: Record<Attack['kind'], number> = { bomb: 3, marks: 2, webhook: 1 };
/** How long to wait, after a window, for victim deliveries still on their way. */
const DELIVERY_WAIT_MS = 30_000;

/** CPU seconds of the server's main process and of its render workers over one window. */
export interface ServerCpu {
  main: number;
  workers: number;
}

/**
 * CPU seconds over one window: the server's (main, workers), each account's client process, this bench
 * process (set-up, the webhook receivers) and the machine's idle time (all cores), to tell whose CPU a
 * slower victim lost.
 */
export interface WindowCpu extends ServerCpu {
  victim: number;
  hammer: number;
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
  hammer: Answers;
  /** requests (any account's) that waited for their share of the main process in the hammered window */
  waits: { admitted: number; timedOut: number };
  /** requests held for their account's budget of unpaid work in the hammered window (let go; 429) */
  held: { admitted: number; limited: number };
  /** how long the hammer ran before the window (until each of its operations was answered once), ms */
  leadInMs: number;
  /** the hammer's answers in the lead-in (not in `hammer`) */
  leadInAnswers: number;
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
  /** MAIN_SHARE_SLOTS of the server (0: no main-process shares) */
  mainShareSlots: string;
  /** UNPAID_WORK_PER_MINUTE of the server (0: no budget of unpaid work) */
  unpaidWorkPerMinute: string;
  /** the machine's 1-minute load average when the bench started and when it ended */
  load: [number, number];
  rows: FairnessRow[];
  webhookAlone?: DeliveryLatency;
  webhookHammered?: DeliveryLatency;
}

/** One account's clients, in a child process (fairness-child.ts). */
type FairnessClient = RpcChild<FairnessCalls>;

const startFairnessClient = () => forkRpc<FairnessCalls>('fairness-child');

async function uploadOk(base: string, key: string, bytes: Uint8Array, name: string): Promise<string> {
  const res = await upload(base, key, bytes, name);
  if (res.status !== 201) throw new Error(`upload of ${name}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data.id as string;
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

interface Pids {
  server: number;
  victim: number;
  hammer: number;
}

function windowCpuNow(pids: Pids): WindowCpu {
  const u = process.cpuUsage();
  return {
    ...serverCpu(pids.server),
    victim: cpuSeconds(pids.victim),
    hammer: cpuSeconds(pids.hammer),
    bench: (u.user + u.system) / 1e6,
    idle: machineIdle(),
  };
}

interface WaitCounts {
  waits: { admitted: number; timedOut: number };
  held: { admitted: number; limited: number };
}

/**
 * The server's counts of requests that waited for their share and of requests held for their account's
 * budget of unpaid work, by outcome (GET /metrics).
 */
async function waitCounts(base: string): Promise<WaitCounts> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const count = (metric: string, outcome: string) =>
    Number(new RegExp(`^${metric}_count\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const share = 'formcast_admission_wait_seconds';
  const budget = 'formcast_unpaid_work_held_seconds';
  return {
    waits: { admitted: count(share, 'admitted'), timedOut: count(share, 'timed_out') },
    held: { admitted: count(budget, 'admitted'), limited: count(budget, 'rate_limited') },
  };
}

const CPU_KEYS = ['main', 'workers', 'victim', 'hammer', 'bench', 'idle'] as const;

/** `f`'s result and the CPU seconds spent while it ran. */
async function withCpu<T>(pids: Pids, f: () => Promise<T>): Promise<{ value: T; cpu: WindowCpu }> {
  const a = windowCpuNow(pids);
  const value = await f();
  const b = windowCpuNow(pids);
  const cpu = {} as WindowCpu;
  for (const k of CPU_KEYS) cpu[k] = b[k] - a[k];
  return { value, cpu };
}

const meanCpu = (a: WindowCpu, b: WindowCpu): WindowCpu => {
  const cpu = {} as WindowCpu;
  for (const k of CPU_KEYS) cpu[k] = (a[k] + b[k]) / 2;
  return cpu;
};

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

/**
 * The victim's client sends itself a test event every VICTIM_EVENT_EVERY_MS for `seconds`; then the
 * latency of each from its request to its receipt (waiting up to DELIVERY_WAIT_MS for late ones).
 */
async function victimDeliveries(
  client: FairnessClient,
  base: string,
  key: string,
  endpointId: string,
  good: Receiver,
  seconds: number,
): Promise<DeliveryLatency> {
  const sent = await client.call('events', { base, key, endpointId, seconds, everyMs: VICTIM_EVENT_EVERY_MS });
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  const missing = () => sent.some(([id]) => !good.received.has(id));
  while (Date.now() < deadline && missing()) await new Promise((r) => setTimeout(r, 100));
  return {
    sent: sent.length,
    latency: summarise(sent.flatMap(([id, at]) => (good.received.has(id) ? [good.received.get(id)! - at] : []))),
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
  // each account's clients in a process of their own: the hammer's client cannot take the victim's CPU
  const victimClient = await startFairnessClient();
  const hammerClient = await startFairnessClient();
  const pids: Pids = { server: server.pid, victim: victimClient.pid, hammer: hammerClient.pid };
  const result: FairnessBench = {
    form: FAIRNESS_FORM,
    seconds,
    workers: workers ?? 'default',
    mainShareSlots: process.env.MAIN_SHARE_SLOTS ?? 'default',
    unpaidWorkPerMinute: process.env.UNPAID_WORK_PER_MINUTE ?? 'default',
    load: [os.loadavg()[0]!, Number.NaN],
    rows: [],
  };
  try {
    const formBytes = new Uint8Array(readFileSync(path.join(corpus, 'pdfs', FAIRNESS_FORM)));
    const victimTpl = await uploadOk(base, victim, formBytes, FAIRNESS_FORM);
    const schema = (await call(base, victim, 'GET', `/v1/templates/${victimTpl}/schema`)).json.data.schema;
    const body = { templateId: victimTpl, data: victimData(schema), options: { flatten: true } };
    const victimWindow = (s: number) =>
      victimClient.call('victim', { base, key: victim, body, seconds: s, concurrency: VICTIM_CONCURRENCY });
    // warm the workers on the victim's template (a worker's first renders of a template prepare it)
    await victimWindow(1);

    const scenario = async (name: string, attack: Attack, during?: () => Promise<unknown>) => {
      log(`fairness: ${name}: the victim alone for ${seconds} s`);
      const window = () => withCpu(pids, () => victimWindow(seconds));
      const before = await window();
      log(`fairness: ${name}: the victim under the hammer for ${seconds} s`);
      await hammerClient.call('hammer', { base, key: hammer, attack, loops: HAMMER_LOOPS });
      const leadIn = performance.now();
      await new Promise((r) => setTimeout(r, HAMMER_LEAD_IN_MS));
      while (
        (await hammerClient.call('hammerProgress', {})).length < OPERATIONS[attack.kind] &&
        performance.now() - leadIn < HAMMER_LEAD_IN_MAX_MS
      )
        await new Promise((r) => setTimeout(r, 100));
      const leadInMs = performance.now() - leadIn;
      const leadInAnswers = await hammerClient.call('hammerWindow', {});
      const alsoDuring = during?.();
      const w0 = await waitCounts(base);
      // a worker that ends inside the window takes its CPU time with it: the figures are a lower bound
      const under = await window();
      const w1 = await waitCounts(base);
      const waits = {
        admitted: w1.waits.admitted - w0.waits.admitted,
        timedOut: w1.waits.timedOut - w0.waits.timedOut,
      };
      const held = { admitted: w1.held.admitted - w0.held.admitted, limited: w1.held.limited - w0.held.limited };
      const answers = await hammerClient.call('stopHammer', {});
      await alsoDuring;
      log(`fairness: ${name}: the victim alone again for ${seconds} s`);
      const after = await window();
      const alone = {
        rate: (before.value.rate + after.value.rate) / 2,
        failed: before.value.failed + after.value.failed,
      };
      const cpuAlone = meanCpu(before.cpu, after.cpu);
      log(
        `  alone ${alone.rate.toFixed(1)}/s, hammered ${under.value.rate.toFixed(1)}/s, hammer: ${answersText(answers)}; waited for a share: ${waits.admitted} (503: ${waits.timedOut}); held for unpaid work: ${held.admitted} (429: ${held.limited}); lead-in ${(leadInMs / 1000).toFixed(1)} s (${leadInAnswers} answers); ` +
          `CPU s alone ${cpuText(cpuAlone)}, hammered ${cpuText(under.cpu)}`,
      );
      result.rows.push({
        scenario: name,
        alone: alone.rate,
        hammered: under.value.rate,
        hammer: answers,
        waits,
        held,
        leadInMs,
        leadInAnswers,
        cpu: under.cpu,
        cpuAlone,
        victimFailed: alone.failed + under.value.failed,
      });
    };

    // (a) a decompression bomb: uploads (refused at upload) and a stored one rendered and previewed
    const bombTpl = await storedBomb(server, hammer);
    await scenario('decompression bomb (upload; render + preview of a stored one)', {
      kind: 'bomb',
      templateId: bombTpl,
    });

    // (b) a letter + 99,999 combining marks, rendered and previewed in one-line and multi-line fields
    const marksTpl = await uploadOk(base, hammer, lineAndMultiLineForm(), 'marks.pdf');
    await scenario('a letter + 99,999 combining marks (render + preview)', { kind: 'marks', templateId: marksTpl });

    // (c) 300 events to an endpoint that never answers; the victim's own endpoint answers at once
    // subscribed to an event the bench never causes: its only deliveries are the webhook.test events
    // (sent to the endpoint whatever it subscribes to), not one per victim render
    const victimHook = await endpoint(base, victim, good.url, ['template.deleted']);
    const deadHook = await endpoint(base, hammer, dead.url, ['*']);
    log('fairness: webhook delivery latency of the victim alone');
    result.webhookAlone = await victimDeliveries(victimClient, base, victim, victimHook, good, seconds);
    await scenario(
      `${DEAD_EVENTS} events to a webhook endpoint that never answers`,
      { kind: 'webhook', endpointId: deadHook, events: DEAD_EVENTS },
      // the victim's events go out while the dead endpoint's deliveries are due and hold their slots
      async () => {
        result.webhookHammered = await victimDeliveries(victimClient, base, victim, victimHook, good, seconds);
      },
    );
    result.load[1] = os.loadavg()[0]!;
    return result;
  } finally {
    victimClient.close();
    hammerClient.close();
    await server.close();
    await good.close();
    await dead.close();
  }
}

const rate = (n: number) => n.toFixed(n < 10 ? 2 : 1);

const cpuText = (c: WindowCpu) => CPU_KEYS.map((k) => c[k].toFixed(1)).join(' / ');

/** "render 422: 80 × 41 ms, …": what the hammer got, how often and how long each took. */
function answersText(answers: Answers): string {
  return Object.entries(answers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([what, a]) => `${what}: ${a.n} × ${a.ms.toFixed(0)} ms`)
    .join(', ');
}

/** The fairness table: one row per scenario, then the webhook latency row. */
export function fairnessTable(b: FairnessBench): string {
  const lines = [
    `| hammer (another account, ${HAMMER_LOOPS} loops) | victim renders/s alone | under hammer | ratio | hammer's answers (count × mean) | waited for a share (503) | held for unpaid work (429) | lead-in s (hammer's answers in it) | CPU s alone: server main / workers / victim client / hammer client / bench / machine idle | CPU s under hammer: same | ≥ ${MIN_RATIO * 100} % |`,
    '|---|--:|--:|--:|---|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of b.rows) {
    const ratio = r.hammered / r.alone;
    const failed = r.victimFailed ? ` (victim: ${r.victimFailed} failed)` : '';
    lines.push(
      `| ${r.scenario} | ${rate(r.alone)} | ${rate(r.hammered)} | ${(100 * ratio).toFixed(0)} % | ${answersText(r.hammer)} | ${r.waits.admitted} (${r.waits.timedOut}) | ${r.held.admitted} (${r.held.limited}) | ${(r.leadInMs / 1000).toFixed(1)} (${r.leadInAnswers}) | ${cpuText(r.cpuAlone)} | ${cpuText(r.cpu)} | ${ratio >= MIN_RATIO && !r.victimFailed ? 'PASS' : 'MISS'}${failed} |`,
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
    `victim: ${FAIRNESS_FORM}, flattened, concurrency ${VICTIM_CONCURRENCY}, ${b.seconds} s per window, baseline = mean of a window alone just before and just after each hammer; server RENDER_WORKERS=${b.workers}, MAIN_SHARE_SLOTS=${b.mainShareSlots}, UNPAID_WORK_PER_MINUTE=${b.unpaidWorkPerMinute}; each account's clients in a process of their own; the hammer starts at least ${HAMMER_LEAD_IN_MS / 1000} s before its window, and until each of its operations was answered once (its answers in the table are the window's); 1-minute load average ${b.load[0].toFixed(2)} at the start, ${b.load[1].toFixed(2)} at the end (${os.availableParallelism()} cores).`,
  );
  return lines.join('\n');
}
