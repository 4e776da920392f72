// One account's clients in the fairness bench (bench/fairness.ts), in a process of their own, so the
// victim's client does not lose its CPU to the hammer's client inside one bench process (issue 27).
// Receives calls over IPC and answers each by its id; calls run concurrently (the victim renders while
// it sends itself webhook events).
import { nestedFlateBomb } from '../test/helpers/hostile-pdfs.js';
import { serveCalls } from './child-rpc.js';
import { type Answers, call, loops, upload } from './fairness-calls.js';

/** What the hammer sends, with what the parent set up for it. */
export type Attack =
  /** uploads of the 2 GiB bomb; renders and previews of a stored one */
  | { kind: 'bomb'; templateId: string }
  /** renders and previews of a letter + 99,999 combining marks, in a one-line and a multi-line field */
  | { kind: 'marks'; templateId: string }
  /** `events` webhook.test events to an endpoint that never answers */
  | { kind: 'webhook'; endpointId: string; events: number };

export interface FairnessCalls {
  /** `concurrency` loops of POST /v1/renders with `body` for `seconds`: renders/s that succeeded */
  victim: {
    args: { base: string; key: string; body: unknown; seconds: number; concurrency: number };
    result: { rate: number; failed: number };
  };
  /** start `loops` loops of the attack; they run until stopHammer */
  hammer: { args: { base: string; key: string; attack: Attack; loops: number }; result: null };
  /** the attack's operations answered at least once so far (e.g. "upload", "render", "preview") */
  hammerProgress: { args: Record<string, never>; result: string[] };
  /** the window starts: forget the answers of the lead-in (how many they were) */
  hammerWindow: { args: Record<string, never>; result: number };
  /** stop the attack: its answers by operation and status since hammerWindow */
  stopHammer: { args: Record<string, never>; result: Answers };
  /** a webhook.test event every `everyMs` for `seconds`: each event id and when (Date.now()) it was asked for */
  events: {
    args: { base: string; key: string; endpointId: string; seconds: number; everyMs: number };
    result: [string, number][];
  };
}

let attack: { stop: boolean; done: Promise<Answers>; answers: Answers } | undefined;

async function attackLoops(
  base: string,
  key: string,
  a: Attack,
  n: number,
  until: () => boolean,
  answers: Answers,
): Promise<Answers> {
  if (a.kind === 'bomb') {
    const bomb = await nestedFlateBomb('page');
    const step = async (_loop: number, i: number) => {
      const what = i % 3;
      if (what === 0) return `upload ${(await upload(base, key, bomb, 'bomb.pdf')).status}`;
      const body = { templateId: a.templateId, data: { name: 'x' }, options: { flatten: true } };
      if (what === 1) return `render ${(await call(base, key, 'POST', '/v1/renders', body)).status}`;
      const data = { data: { name: 'x' } };
      return `preview ${(await call(base, key, 'POST', `/v1/templates/${a.templateId}/preview`, data)).status}`;
    };
    return loops(n, until, step, answers);
  }
  if (a.kind === 'marks') {
    const tower = `a${'\u0301'.repeat(99_999)}`;
    const step = async (loop: number, i: number) => {
      const data = { [loop % 2 ? 'multi' : 'one']: tower };
      if (i % 2)
        return `preview ${(await call(base, key, 'POST', `/v1/templates/${a.templateId}/preview`, { data })).status}`;
      const body = { templateId: a.templateId, data, options: { flatten: true } };
      return `render ${(await call(base, key, 'POST', '/v1/renders', body)).status}`;
    };
    return loops(n, until, step, answers);
  }
  let sent = 0;
  const step = async () => {
    sent++;
    return `event ${(await call(base, key, 'POST', `/v1/webhook-endpoints/${a.endpointId}/test`)).status}`;
  };
  return loops(n, () => until() || sent >= a.events, step, answers);
}

const calls: { [K in keyof FairnessCalls]: (args: FairnessCalls[K]['args']) => Promise<FairnessCalls[K]['result']> } = {
  async victim({ base, key, body, seconds, concurrency }) {
    const start = performance.now();
    const end = start + seconds * 1000;
    const answers = await loops(
      concurrency,
      () => performance.now() >= end,
      async () => String((await call(base, key, 'POST', '/v1/renders', body)).status),
    );
    const elapsed = (performance.now() - start) / 1000;
    const ok = answers['201']?.n ?? 0;
    const failed = Object.entries(answers).reduce((n, [s, a]) => (s === '201' ? n : n + a.n), 0);
    return { rate: ok / elapsed, failed };
  },
  async hammer({ base, key, attack: a, loops: n }) {
    const state = { stop: false, done: Promise.resolve({} as Answers), answers: {} as Answers };
    state.done = attackLoops(base, key, a, n, () => state.stop, state.answers);
    attack = state;
    return null;
  },
  async hammerProgress() {
    return [...new Set(Object.keys(attack?.answers ?? {}).map((what) => what.split(' ')[0]!))];
  },
  async hammerWindow() {
    // the answers so far were the lead-in's: count the window's alone
    let leadIn = 0;
    for (const [what, a] of Object.entries(attack?.answers ?? {})) {
      leadIn += a.n;
      delete attack!.answers[what];
    }
    return leadIn;
  },
  async stopHammer() {
    if (!attack) return {};
    attack.stop = true;
    const answers = await attack.done;
    attack = undefined;
    return answers;
  },
  async events({ base, key, endpointId, seconds, everyMs }) {
    const sent: [string, number][] = [];
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end) {
      const at = Date.now();
      const res = await call(base, key, 'POST', `/v1/webhook-endpoints/${endpointId}/test`);
      // the 202 answers the queued delivery; its event id is what the receiver sees as `id`
      const eventId = res.json?.data?.eventId as string | undefined;
      if (eventId) sent.push([eventId, at]);
      await new Promise((r) => setTimeout(r, everyMs));
    }
    return sent;
  },
};

serveCalls<FairnessCalls>(calls);
