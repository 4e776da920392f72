import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { startServeProcess } from '../helpers/serve-process.js';

// `formcast backup` of a live server: every render acknowledged before the backup began is in the copy,
// with its file and a working download link, when a second server starts on it.
const run = promisify(execFile);
const BIN = path.join(repoRoot, 'bin/formcast.js');
const servers: ChildProcess[] = [];

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, cwd: repoRoot });
}

async function serve(dataDir: string): Promise<string> {
  const { base: url } = await startServeProcess(
    { DATA_DIR: dataDir, LOG_LEVEL: 'silent', RENDER_WORKERS: '1' },
    { cwd: repoRoot, onSpawn: (spawned) => servers.push(spawned) },
  );
  return url;
}

async function stop(server: ChildProcess | undefined): Promise<void> {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  for (const s of servers) await stop(s);
});

describe('formcast backup', () => {
  it.skipIf(!corpusDir())(
    'copies a live server: every render acknowledged before it is restored with its file',
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-backup-'));
      const env = { DATA_DIR: dataDir };
      const url = await serve(dataDir);
      const { apiKey } = JSON.parse(
        (await cli(['accounts', 'create', '--name', 'B', '--plan', 'Business', '--json'], env)).stdout,
      );
      const auth = { authorization: `Bearer ${apiKey}` };
      const form = new FormData();
      form.set('file', new Blob([readFileSync(path.join(corpusDir()!, 'pdfs', 'irs-fw9-2018.pdf'))]), 'w9.pdf');
      const upload = await fetch(`${url}/v1/templates`, { method: 'POST', headers: auth, body: form });
      expect(upload.status).toBe(201);
      const templateId = ((await upload.json()) as any).data.id as string;

      // renders keep arriving while the backup runs; each records when it was acknowledged
      const acknowledged: { id: string; at: number }[] = [];
      let running = true;
      const loop = (async () => {
        for (let i = 0; running; i++) {
          const res = await fetch(`${url}/v1/renders`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ templateId, data: { f1_1: `Name ${i}` } }),
          });
          expect(res.status).toBe(201);
          acknowledged.push({ id: ((await res.json()) as any).data.renderId, at: Date.now() });
        }
      })();
      while (acknowledged.length < 10) await new Promise((r) => setTimeout(r, 20));

      const out = path.join(mkdtempSync(path.join(tmpdir(), 'formcast-backup-out-')), 'copy');
      const began = Date.now();
      const summary = JSON.parse((await cli(['backup', out, '--json'], env)).stdout);
      while (acknowledged.filter((a) => a.at > began).length < 3) await new Promise((r) => setTimeout(r, 20));
      running = false;
      await loop;
      await stop(servers.at(-1));

      expect(summary.database.integrity).toBe('ok');
      expect(summary.files.files).toBeGreaterThanOrEqual(1 + acknowledged.filter((a) => a.at < began).length);
      expect(JSON.parse(readFileSync(path.join(out, 'backup.json'), 'utf8')).database.integrity).toBe('ok');

      const restored = await serve(out);
      const before = acknowledged.filter((a) => a.at < began);
      expect(before.length).toBeGreaterThanOrEqual(10);
      for (const { id } of before) {
        const res = await fetch(`${restored}/v1/renders/${id}`, { headers: auth });
        expect(res.status, id).toBe(200);
        const render = ((await res.json()) as any).data;
        expect(render.status).toBe('completed');
        const pdf = await fetch(render.downloadUrl.replace(/^http:\/\/[^/]+/, restored));
        expect(pdf.status, id).toBe(200);
        expect(
          Buffer.from(await pdf.arrayBuffer())
            .subarray(0, 5)
            .toString(),
        ).toBe('%PDF-');
      }
      const template = await fetch(`${restored}/v1/templates/${templateId}/schema`, { headers: auth });
      expect(template.status).toBe(200);
    },
    120_000,
  );

  it('refuses a folder that is not empty, and PostgreSQL, naming what to do', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-backup-'));
    await cli(['accounts', 'list'], { DATA_DIR: dataDir });
    const full = mkdtempSync(path.join(tmpdir(), 'formcast-backup-full-'));
    mkdirSync(path.join(full, 'x'));
    writeFileSync(path.join(full, 'x', 'y'), 'y');
    await expect(cli(['backup', full], { DATA_DIR: dataDir })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('not empty'),
    });
    await expect(
      cli(['backup', path.join(full, 'new')], { DATA_DIR: dataDir, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x' }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('pg_dump') });
  });
});
