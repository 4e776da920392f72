// After a real server process is killed with SIGKILL in the middle of renders, a restarted instance
// (default SWEEP_INTERVAL_MS of an hour) must (2) let a retry of the cut request's Idempotency-Key run
// instead of answering 409 for 24 hours, charging the quota once, and (3) stop the cut renders holding
// quota within minutes. A render is kept in flight by stopping the render worker (SIGSTOP) first.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/bootstrap.js';
import { openDatabase } from '../../src/adapters/db/database.js';
import { createAccount } from '../../src/modules/accounts/accounts.js';
import { createTemplate } from '../../src/modules/templates/create-template.js';
import { acquireLease } from '../../src/modules/housekeeping/leases.js';
import { startSweeper } from '../../src/modules/housekeeping/sweeper.js';
import { corpusDir } from '../helpers/corpus.js';
import { DATABASES, freshPostgresUrl } from '../helpers/server.js';
import { startServeProcess } from '../helpers/serve-process.js';

const corpus = corpusDir();

/** Render worker processes of the server process `pid` (not tsx's esbuild service, also a child). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('render-worker')) out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

async function poll<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `recovery after a crash [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 300_000 },
    () => {
      it('lets a crash-cut Idempotency-Key be retried (charged once) and frees the quota of cut renders, with the default sweep interval', async () => {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-recovery-'));
        const pgSchema = db.name === 'postgres' ? await freshPostgresUrl() : undefined;
        const env: Record<string, string> = {
          DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          RENDER_WORKERS: '1',
          RENDER_TIMEOUT_MS: '4000',
        };
        if (pgSchema) env.DATABASE_URL = pgSchema.url;
        const config = loadConfig(env);
        const pdf = readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf'));
        // The accounts and templates are made in this process's engine, without the served instances' short
        // render budget: a cold worker's first analysis can take longer than 4 s on a busy 2-core machine.
        const runtime = await createRuntime(loadConfig({ ...env, RENDER_TIMEOUT_MS: undefined, RENDER_WORKERS: '0' }));
        const x = await createAccount(runtime, { name: 'x', plan: 'Business' });
        const y = await createAccount(runtime, { name: 'y', plan: 'Business' });
        const tplX = await createTemplate(
          runtime,
          { id: x.account.id, plan: 'Business' },
          { bytes: pdf, fileName: 'x.pdf' },
        );
        const tplY = await createTemplate(
          runtime,
          { id: y.account.id, plan: 'Business' },
          { bytes: pdf, fileName: 'y.pdf' },
        );
        await runtime.close();
        const handle = await openDatabase(config.database);
        const procs: ChildProcess[] = [];
        const start = async () => {
          const { proc: p, base } = await startServeProcess(env, {
            timeoutMs: 60_000,
            onSpawn: (spawned) => procs.push(spawned),
          });
          return { p, base };
        };
        const call = async (
          base: string,
          key: string,
          method: string,
          url: string,
          body?: unknown,
          headers: Record<string, string> = {},
        ) => {
          const res = await fetch(base + url, {
            method,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: res.status, json: (await res.json()) as any };
        };
        const used = async (base: string, key: string) =>
          (await call(base, key, 'GET', '/v1/renders/usage')).json.data.renders.used as number;
        try {
          const one = await start();
          expect(
            (await call(one.base, y.apiKey, 'POST', '/v1/renders', { templateId: tplY.id, data: {} })).status,
          ).toBe(201); // the worker is up
          const [worker] = await poll('the render worker', 60_000, async () =>
            childrenOf(one.p.pid!).length ? childrenOf(one.p.pid!) : undefined,
          );
          process.kill(worker, 'SIGSTOP'); // renders sent to it now stay in flight
          const bodyX = { templateId: tplX.id, data: {} };
          void call(one.base, x.apiKey, 'POST', '/v1/renders', bodyX, { 'idempotency-key': 'cut-1' }).catch(
            () => undefined,
          );
          void call(one.base, y.apiKey, 'POST', '/v1/renders', { templateId: tplY.id, data: {} }).catch(
            () => undefined,
          );
          await poll('two renders in flight', 60_000, async () => {
            const rows = await handle.db.selectFrom('renders').select('id').where('status', '=', 'pending').execute();
            return rows.length === 2 ? rows : undefined;
          });
          one.p.kill('SIGKILL');
          process.kill(worker, 'SIGKILL');
          if (one.p.exitCode === null && one.p.signalCode === null) await new Promise((r) => one.p.once('exit', r));

          const two = await start();
          // (2) the retry of the cut key is answered, not IDEMPOTENCY_KEY_IN_USE for 24 hours
          const retried = await poll('the cut Idempotency-Key to be retryable', 120_000, async () => {
            const r = await call(two.base, x.apiKey, 'POST', '/v1/renders', bodyX, { 'idempotency-key': 'cut-1' });
            return r.status === 409 ? undefined : r;
          });
          expect(retried.status).toBe(201);
          expect(retried.json.data.status).toBe('completed');
          expect(await used(two.base, x.apiKey)).toBe(1); // the cut attempt is not charged too
          const replay = await call(two.base, x.apiKey, 'POST', '/v1/renders', bodyX, { 'idempotency-key': 'cut-1' });
          expect(replay.json.data.renderId).toBe(retried.json.data.renderId);

          // (3) the cut render of y stops holding quota within minutes, not after the hourly sweep
          await poll('the cut render to stop counting', 180_000, async () =>
            (await used(two.base, y.apiKey)) === 1 ? true : undefined,
          );
          const pending = await handle.db.selectFrom('renders').select('id').where('status', '=', 'pending').execute();
          expect(pending).toEqual([]);
        } finally {
          for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
          await handle.close();
          await pgSchema?.drop();
        }
      });

      it('gives the sweeper lease back on shutdown, so a restarted instance sweeps at once', async () => {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-lease-'));
        const pgSchema = db.name === 'postgres' ? await freshPostgresUrl() : undefined;
        const config = loadConfig({
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          RENDER_WORKERS: '0',
          ...(pgSchema ? { DATABASE_URL: pgSchema.url } : {}),
        });
        const runtime = await createRuntime(config);
        try {
          const stop = startSweeper(runtime);
          // the start-up sweep has run once the lease is free again or was taken and given back
          await stop();
          expect(await acquireLease(runtime, 'retention-sweeper', 'restarted-instance', 60_000)).toBe(true);
        } finally {
          await runtime.close();
          await pgSchema?.drop();
        }
      });
    },
  );
}
