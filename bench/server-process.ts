// A real server process for the benches that measure the service as deployed: `bin/formcast.js serve` on
// SQLite in a temp DATA_DIR, Business accounts made with the CLI, a PLANS_FILE that lifts quotas and rate
// limits out of the way (they must never be what a bench measures).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../src/heap-tuning.js';

export interface ServerProcess {
  base: string;
  dataDir: string;
  pid: number;
  /** one API key per account asked for, in order */
  keys: string[];
  close(): Promise<void>;
}

const BIG = 1_000_000_000;

export async function startServerProcess(
  repoRoot: string,
  opts: { accounts: string[]; env?: Record<string, string>; tmpPrefix?: string },
): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), opts.tmpPrefix ?? 'formcast-bench-server-'));
  const plansFile = path.join(dataDir, 'plans.json');
  writeFileSync(
    plansFile,
    JSON.stringify({ Business: { rendersPerMonth: BIG, requestsPerMinute: BIG, templates: 100_000 } }),
  );
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PLANS_FILE: plansFile,
    HOST: '127.0.0.1',
    PORT: String(21000 + Math.floor(Math.random() * 20000)),
    LOG_LEVEL: 'silent',
    ...opts.env,
  };
  const bin = path.join(repoRoot, 'bin/formcast.js');
  const keys: string[] = [];
  for (const name of opts.accounts) {
    const created = spawn(
      process.execPath,
      [bin, 'accounts', 'create', '--name', name, '--plan', 'Business', '--json'],
      {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    created.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((r) => created.once('exit', r));
    keys.push((JSON.parse(out) as { apiKey: string }).apiKey);
  }
  const base = `http://127.0.0.1:${env.PORT}`;
  // the server as deployed: Node's flags as `npm start` gives them
  const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, bin, 'serve'], { env, stdio: 'ignore' });
  const close = async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => (server.exitCode !== null ? r(null) : server.once('exit', r)));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        /* starting */
      }
      if (i > 600) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { base, dataDir, pid: server.pid!, keys, close };
}
