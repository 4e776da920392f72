// SIGTERM on a real server process with a render in flight and an idle keep-alive connection open:
// the render is answered, the idle socket is closed at once, and the process exits 0 well within
// its 30 s grace period.
import { execFile } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { uploadForm } from '../helpers/server.js';
import { startServeProcess } from '../helpers/serve-process.js';

const run = promisify(execFile);
const BIN = path.join(repoRoot, 'bin/formcast.js');
const corpus = corpusDir();

/** One request on the given agent; resolves with status and body. */
function request(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!corpus)('graceful shutdown of a real server process', () => {
  it('finishes a render in flight, closes idle keep-alive sockets and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-shutdown-'));
    const env = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', RENDER_WORKERS: '1' };
    const started = await startServeProcess({ ...env, LOG_LEVEL: 'info' }, { cwd: repoRoot });
    const { proc: server, base } = started;
    const exited = new Promise<number | null>((r) =>
      server.exitCode !== null || server.signalCode !== null
        ? r(server.exitCode)
        : server.once('exit', (code) => r(code)),
    );
    try {
      const { stdout } = await run(
        process.execPath,
        [BIN, 'accounts', 'create', '--name', 'Acme', '--plan', 'Pro', '--json'],
        { env: { ...env, LOG_LEVEL: 'silent' }, cwd: repoRoot },
      );
      const auth = { authorization: `Bearer ${JSON.parse(stdout.trim()).apiKey}` };
      const up = await fetch(`${base}/v1/templates`, {
        method: 'POST',
        headers: auth,
        body: uploadForm(readFileSync(path.join(corpus!, 'pdfs/irs-f1040-2010-prefilled.pdf')), 'f1040.pdf'),
      });
      const templateId = ((await up.json()) as { data: { id: string } }).data.id;

      // An idle keep-alive connection, as a client pool leaves them.
      const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      expect((await request(idleAgent, `${base}/health`, 'GET', {})).status).toBe(200);
      let idleClosed = false;
      for (const sockets of Object.values(idleAgent.freeSockets))
        for (const s of sockets ?? []) s.once('close', () => (idleClosed = true));

      // A render in flight when the signal arrives: SIGTERM once the server has logged the request.
      const renderAgent = new http.Agent({ keepAlive: true });
      const logged = started.output().length;
      const render = request(
        renderAgent,
        `${base}/v1/renders`,
        'POST',
        { ...auth, 'content-type': 'application/json' },
        JSON.stringify({ templateId, data: { f1_01_0_: 'Ada' } }),
      );
      while (!started.output().slice(logged).includes('/v1/renders')) await new Promise((r) => setTimeout(r, 10));
      const signalledAt = Date.now();
      server.kill('SIGTERM');

      const answered = await render;
      expect(answered.status, answered.body).toBe(201);
      expect(await exited, started.output().slice(-3000)).toBe(0);
      // The old behaviour waited for the 30 s force-exit timer; anything near it is the bug.
      expect(Date.now() - signalledAt).toBeLessThan(20_000);
      expect(idleClosed).toBe(true);
      idleAgent.destroy();
      renderAgent.destroy();
    } finally {
      server.kill('SIGKILL');
    }
  });
});
