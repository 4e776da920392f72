// Accepted async work survives kill -9: a batch is accepted by a real server process, which is killed
// while its items are pending; a new instance on the same database re-runs what the dead one held and
// every item completes exactly once (one completed record, one render.completed event each, exact usage).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/bootstrap.js';
import { createAccount } from '../../src/modules/accounts/accounts.js';
import { createTemplate } from '../../src/modules/templates/create-template.js';
import { getUsage } from '../../src/modules/accounts/usage.js';
import { corpusDir } from '../helpers/corpus.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';
import { TestClock } from '../helpers/server.js';
import { sweepOnce } from '../../src/modules/housekeeping/sweeper.js';

const corpus = corpusDir();
const ITEMS = 60;

describe.skipIf(!corpus)('async work after kill -9 (SQLite + folder, real process)', { timeout: 300_000 }, () => {
  it('completes every pending item after a restart, once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-async-crash-'));
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      // a short budget gives a short liveness TTL (2 s): the dead instance's jobs are free soon
      RENDER_TIMEOUT_MS: '4000',
      RENDER_WORKERS: '1',
      JOB_POLL_MS: '200',
    };
    const config = loadConfig(env);
    const pdf = readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf'));
    // The setup's own runtime (account, template) with the default budget: the template's analysis starts
    // a worker and its pdf.js thread, which took more than 4 s on a loaded machine. What is under test is
    // the server process below and the restart, which keep the short budget.
    let runtime = await createRuntime(loadConfig({ ...env, RENDER_TIMEOUT_MS: '60000' }));
    const { account, apiKey } = await createAccount(runtime, { name: 'async crash', plan: 'Pro' });
    const tpl = await createTemplate(runtime, { id: account.id, plan: 'Pro' }, { bytes: pdf, fileName: 'req.pdf' });
    await runtime.close();

    const { proc: server, base } = await startServeProcess(env);
    const res = await fetch(`${base}/v1/renders/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: Array.from({ length: ITEMS }, () => ({ templateId: tpl.id, data: {} })) }),
    });
    expect(res.status).toBe(202);
    const batchId = ((await res.json()) as { data: { id: string } }).data.id;
    server.kill('SIGKILL');
    if (server.exitCode === null && server.signalCode === null) await new Promise((r) => server.once('exit', r));

    // restarted an hour later: the crash recovery of synchronous renders (the sweeper's age rule, dead
    // owners) must leave async work alone, to be re-run rather than failed
    runtime = await createRuntime(config, { clock: new TestClock(Date.now() + 3_600_000) });
    try {
      const swept = await sweepOnce(runtime);
      expect(swept?.stalePending).toBe(0);
      const pendingAtRestart = await runtime.db
        .selectFrom('renders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      console.log(`async restart test: ${pendingAtRestart.n} of ${ITEMS} items pending at restart`);
      expect(Number(pendingAtRestart.n)).toBeGreaterThan(0); // the kill came while work was pending
      await until(async () => {
        const b = await runtime.db
          .selectFrom('render_batches')
          .select('status')
          .where('id', '=', batchId)
          .executeTakeFirstOrThrow();
        return b.status === 'completed' ? true : undefined;
      }, 'the batch to complete after the restart');
      const renders = await runtime.db.selectFrom('renders').selectAll().where('batch_id', '=', batchId).execute();
      expect(renders).toHaveLength(ITEMS);
      for (const r of renders) {
        expect(r.status, r.id).toBe('completed');
        expect(await runtime.blobs.exists(r.blob_key!), r.id).toBe(true);
      }
      const events = await runtime.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'render.completed')
        .execute();
      const ids = events.map((e) => JSON.parse(e.data).id as string);
      expect(ids.length).toBe(ITEMS);
      expect(new Set(ids).size).toBe(ITEMS);
      expect(await runtime.db.selectFrom('render_jobs').selectAll().execute()).toEqual([]);
      expect((await getUsage(runtime, { id: account.id, plan: 'Pro' })).renders.used).toBe(ITEMS);
    } finally {
      await runtime.close();
    }
  });
});
