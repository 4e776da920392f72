import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/bootstrap.js';
import { createAccount } from '../../src/modules/accounts/accounts.js';
import { createTemplate } from '../../src/modules/templates/create-template.js';
import { sweepOnce } from '../../src/modules/housekeeping/sweeper.js';
import { getUsage } from '../../src/modules/accounts/usage.js';
import { corpusDir } from '../helpers/corpus.js';
import { TestClock } from '../helpers/server.js';
import { startServeProcess } from '../helpers/serve-process.js';

const corpus = corpusDir();

describe.skipIf(!corpus)(
  'crash safety (SQLite + folder, real process killed with SIGKILL)',
  { timeout: 180_000 },
  () => {
    it('leaves no record without its file, no orphan file, and quota counts equal to the records', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-crash-'));
      const env = {
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        RENDER_TIMEOUT_MS: '20000',
        RENDER_WORKERS: '1',
      };
      const config = loadConfig(env);
      const pdf = readFileSync(path.join(corpus!, 'pdfs', 'luxembourg-certificat-salaire-160-2019.pdf'));

      // seed through the use cases, then let the real server take over the same files
      let runtime = await createRuntime(config);
      const { account, apiKey } = await createAccount(runtime, { name: 'crash', plan: 'Business' });
      const tpl = await createTemplate(
        runtime,
        { id: account.id, plan: 'Business' },
        { bytes: pdf, fileName: 'lux.pdf' },
      );
      await runtime.close();

      const { proc: server, base } = await startServeProcess(env);
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const inflight: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        inflight.push(
          fetch(`${base}/v1/renders`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ templateId: tpl.id, data: {} }),
          }).catch(() => undefined),
        );
        const form = new FormData();
        form.append('file', new Blob([pdf]), 'up.pdf');
        if (i % 5 === 0)
          inflight.push(
            fetch(`${base}/v1/templates`, {
              method: 'POST',
              headers: { authorization: headers.authorization },
              body: form,
            }).catch(() => undefined),
          );
      }
      await new Promise((r) => setTimeout(r, 400));
      server.kill('SIGKILL');
      await Promise.allSettled(inflight);
      // the process may already have exited while the requests failed: then 'exit' has been emitted
      if (server.exitCode === null && server.signalCode === null) await new Promise((r) => server.once('exit', r));

      // restart, later than any render could still be running, and let the sweeper recover
      const clock = new TestClock(Date.now() + 10 * 60_000);
      runtime = await createRuntime(config, { clock });
      try {
        const swept = await sweepOnce(runtime);
        console.log('crash test: after restart', JSON.stringify(swept));
        const renders = await runtime.db.selectFrom('renders').selectAll().execute();
        console.log('crash test: renders by status', JSON.stringify(renders.map((r) => r.status)));
        expect(renders.length).toBeGreaterThan(0); // the kill happened while work was going on
        for (const r of renders) {
          expect(['completed', 'failed'], r.id).toContain(r.status);
          if (r.status === 'completed') expect(await runtime.blobs.exists(r.blob_key!), r.id).toBe(true);
        }
        const templates = await runtime.db.selectFrom('templates').selectAll().execute();
        for (const t of templates) expect(await runtime.blobs.exists(t.blob_key)).toBe(true);
        const referenced = new Set([...renders.map((r) => r.blob_key), ...templates.map((t) => t.blob_key)]);
        for await (const key of runtime.blobs.list('')) expect(referenced.has(key), `orphan file ${key}`).toBe(true);
        const usage = await getUsage(runtime, { id: account.id, plan: 'Business' });
        expect(usage.renders.used).toBe(renders.filter((r) => r.status === 'completed').length);
        expect(usage.templates.used).toBe(templates.length);
      } finally {
        await runtime.close();
      }
    });
  },
);
