// Instances read one time, the database's: with a second instance's wall clock 20 s ahead, renders
// spread over both all complete (an instance ahead took the other's in-flight renders for abandoned
// and answered them 422), and records are dated by the database's time. A backward step of a machine's
// clock does not stall async work scheduled before it. The servers are real processes whose Date is
// shifted by a preloaded module (test/helpers/shifted-clock.mjs).
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { freshPostgresUrl } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { startServeProcess } from '../helpers/serve-process.js';

const corpus = corpusDir();
const BIN = path.join(repoRoot, 'bin/formcast.js');
const SHIFT = path.join(repoRoot, 'test/helpers/shifted-clock.mjs');
const run = promisify(execFile);
const processes: ChildProcess[] = [];

async function serve(env: Record<string, string>, shiftMs = 0, stepMs = 0) {
  const { proc: child, base: url } = await startServeProcess(
    {
      ...env,
      LOG_LEVEL: 'silent',
      RENDER_WORKERS: '1',
      CLOCK_SHIFT_MS: String(shiftMs),
      CLOCK_STEP_MS: String(stepMs),
    },
    { nodeArgs: shiftMs || stepMs ? ['--import', SHIFT] : [], onSpawn: (spawned) => processes.push(spawned) },
  );
  return { url, child };
}

afterEach(async () => {
  for (const p of processes.splice(0)) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
  }
});

async function account(env: Record<string, string>) {
  const { stdout } = await run(
    process.execPath,
    [BIN, 'accounts', 'create', '--name', 'skew', '--plan', 'Business', '--json'],
    {
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    },
  );
  return JSON.parse(stdout) as { apiKey: string; accountId: string };
}

async function upload(url: string, key: string, file: string) {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(path.join(corpus!, 'pdfs', file))]), file);
  const res = await fetch(`${url}/v1/templates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).data.id as string;
}

describe.skipIf(!corpus || !process.env.TEST_DATABASE_URL)(
  `two instances whose clocks differ by 20 s (PostgreSQL)${process.env.TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  { timeout: 240_000 },
  () => {
    it('completes every render spread over both, and dates records by the database', async () => {
      const pg = await freshPostgresUrl();
      try {
        const env = {
          DATABASE_URL: pg.url,
          DATA_DIR: mkdtempSync(path.join(tmpdir(), 'formcast-skew-')),
          SIGNING_SECRET: 'a'.repeat(40),
        };
        const key = (await account(env)).apiKey;
        const on = await serve(env);
        const ahead = await serve(env, 20_000);
        const tpl = await upload(on.url, key, 'uscourts-b107-financial-affairs.pdf');
        const statuses: number[] = [];
        let next = 0;
        const worker = async () => {
          while (next < 40) {
            const i = next++;
            const res = await fetch(`${(i % 2 ? ahead : on).url}/v1/renders`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ templateId: tpl, data: {} }),
            });
            statuses.push(res.status);
            await res.arrayBuffer();
          }
        };
        await Promise.all([worker(), worker(), worker(), worker()]);
        expect(statuses.filter((s) => s !== 201)).toEqual([]);

        // a render made on the instance ahead is dated by the database's time, not its own
        const res = await fetch(`${ahead.url}/v1/renders?limit=1`, { headers: { authorization: `Bearer ${key}` } });
        const newest = ((await res.json()) as any).data[0];
        expect(Math.abs(Date.parse(newest.createdAt) - Date.now())).toBeLessThan(10_000);
      } finally {
        await pg.drop();
      }
    });
  },
);

describe.skipIf(!corpus)('a backward step of the machine clock (SQLite)', { timeout: 240_000 }, () => {
  it('does not stall async work scheduled before it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-step-'));
    const env = { DATA_DIR: dataDir, JOB_POLL_MS: '100' };
    const { apiKey: key, accountId } = await account(env);
    const server = await serve(env, 0, -600_000);
    const tpl = await upload(server.url, key, 'irs-fw9-2018.pdf');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const first = await fetch(`${server.url}/v1/renders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ templateId: tpl, data: {} }),
    });
    expect(first.status).toBe(201);
    // storage fails: the async render's first attempt is given back, due again in 2 s
    const folder = path.join(dataDir, 'files', 'renders', accountId);
    mkdirSync(folder, { recursive: true });
    renameSync(folder, `${folder}.away`);
    writeFileSync(folder, 'not a folder');
    const accepted = await fetch(`${server.url}/v1/renders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ templateId: tpl, data: {}, options: { async: true } }),
    });
    expect(accepted.status).toBe(202);
    const id = ((await accepted.json()) as any).data.renderId;
    await new Promise((r) => setTimeout(r, 500)); // let the first attempt fail
    server.child.kill('SIGUSR2'); // the machine's clock steps back 10 minutes
    rmSync(folder);
    renameSync(`${folder}.away`, folder);
    const done = await until(
      async () => {
        const r = ((await (await fetch(`${server.url}/v1/renders/${id}`, { headers })).json()) as any).data;
        return r.status === 'pending' ? undefined : r;
      },
      'the async render after the step',
      60_000,
    );
    expect(done.status).toBe('completed');
  });
});
