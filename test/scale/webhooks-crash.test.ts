// Nothing is lost on kill -9: a real server process is killed (1) after a change committed its event
// and before any attempt, and (2) in the middle of an attempt; restarted, it delivers each event, and
// the receiver (verifying signatures with the `standardwebhooks` package) accepts it once.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/bootstrap.js';
import { openDatabase } from '../../src/adapters/db/database.js';
import { createAccount } from '../../src/modules/accounts/accounts.js';
import { corpusDir } from '../helpers/corpus.js';
import { DATABASES, freshPostgresUrl, uploadForm } from '../helpers/server.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const corpus = corpusDir();

async function poll<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `webhooks survive kill -9 [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 300_000 },
    () => {
      it('delivers, once, an event committed just before a kill -9 and one whose attempt a kill -9 cut', async () => {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-webhook-crash-'));
        const pgSchema = db.name === 'postgres' ? await freshPostgresUrl() : undefined;
        const env: Record<string, string> = {
          DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          RENDER_WORKERS: '1',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_TIMEOUT_MS: '5000', // an attempt cut by a crash is taken up again 10 s after it began
        };
        if (pgSchema) env.DATABASE_URL = pgSchema.url;
        const config = loadConfig(env);
        const runtime = await createRuntime(config);
        const { account, apiKey } = await createAccount(runtime, { name: 'x', plan: 'Pro' });
        await runtime.close();
        const handle = await openDatabase(config.database);
        const receiver = await startReceiver();
        const procs: ChildProcess[] = [];
        const start = async (extra: Record<string, string> = {}) => {
          const { proc: p, base } = await startServeProcess(
            { ...env, ...extra },
            { timeoutMs: 60_000, onSpawn: (spawned) => procs.push(spawned) },
          );
          return { p, base };
        };
        const kill9 = async (p: ChildProcess) => {
          p.kill('SIGKILL');
          if (p.exitCode === null && p.signalCode === null) await new Promise((r) => p.once('exit', r));
        };
        const call = async (base: string, method: string, url: string, body?: unknown) => {
          const res = await fetch(base + url, {
            method,
            headers: {
              authorization: `Bearer ${apiKey}`,
              ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }),
            },
            body: body instanceof FormData ? body : JSON.stringify(body),
          });
          return { status: res.status, json: (await res.json()) as any };
        };
        const delivery = (eventType: string) =>
          handle.db
            .selectFrom('webhook_deliveries')
            .selectAll()
            .where('account_id', '=', account.id)
            .where('event_type', '=', eventType)
            .execute();
        const form = () =>
          uploadForm(readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf')), 'form.pdf');
        try {
          // (1) the worker of this instance looks for work only once a minute: the change below commits
          // its event and delivery, and the process dies before any attempt
          const one = await start({ WEBHOOK_POLL_MS: '60000' });
          const endpoint = await call(one.base, 'POST', '/v1/webhook-endpoints', { url: receiver.url });
          expect(endpoint.status).toBe(201);
          receiver.secrets = [endpoint.json.data.secret];
          const created = await call(one.base, 'POST', '/v1/templates', form());
          expect(created.status).toBe(201);
          const [before] = await delivery('template.created');
          expect(before).toMatchObject({ status: 'pending', attempts: 0 });
          await kill9(one.p);
          expect(receiver.received).toHaveLength(0);

          const two = await start();
          await receiver.waitFor('the committed event', () => receiver.received.length === 1, 60_000);
          const first = receiver.received[0];
          expect(first.json).toMatchObject({ type: 'template.created', data: created.json.data });
          expect(first.id).toBe(before.event_id);
          expect(receiver.deliveredOnce(first.id)).toBe(1);
          await poll('the success to be recorded', 30_000, async () => {
            const [d] = await delivery('template.created');
            return d.status === 'succeeded' ? d : undefined;
          });

          // (2) the receiver holds the next request open; the process dies with the attempt in flight
          receiver.script = ['hold'];
          const patched = await call(two.base, 'PATCH', `/v1/templates/${created.json.data.id}`, { name: 'renamed' });
          expect(patched.status).toBe(200);
          await receiver.waitFor('the attempt to start', () => receiver.received.length === 2, 60_000);
          await kill9(two.p);
          const cut = receiver.received[1];
          expect(cut.json).toMatchObject({ type: 'template.updated', data: { name: 'renamed' } });

          await start();
          await receiver.waitFor('the cut attempt to be made again', () => receiver.received.length === 3, 90_000);
          expect(receiver.received[2].id).toBe(cut.id); // the same message: receivers deduplicate on webhook-id
          expect(receiver.received[2].body).toBe(cut.body);
          expect(receiver.deliveredOnce(cut.id)).toBe(1);
          const d = await poll('the success to be recorded', 30_000, async () => {
            const [x] = await delivery('template.updated');
            return x.status === 'succeeded' ? x : undefined;
          });
          expect(d.attempts).toBe(2); // the cut attempt counts
          expect(await delivery('template.updated')).toHaveLength(1);
          expect(receiver.received).toHaveLength(3);
        } finally {
          for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
          await receiver.close();
          await handle.close();
          await pgSchema?.drop();
        }
      });
    },
  );
}
