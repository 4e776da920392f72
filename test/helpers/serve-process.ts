// `formcast serve` as a real process on a port of its own. The port is drawn below the kernel's ephemeral
// range (32768 and up on Linux), where the suite's thousands of client sockets and port-0 servers take
// theirs, from a slice of that range owned by this vitest fork (VITEST_POOL_ID): only these servers bind
// there, a fork starts them one at a time, so no other server can be on the port when ours answers its
// /health. The port is still checked free just before (a server an earlier file of the fork left
// running), and a process that exits with EADDRINUSE anyway is started again on another port instead of
// the test waiting out its health timeout against a process already gone.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from './corpus.js';

const BIN = path.join(repoRoot, 'bin/formcast.js');
const FIRST_PORT = 10_000;
const PORTS_PER_FORK = 2_500; // eight forks' slices end below 32768

export interface ServeProcess {
  proc: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** everything the process wrote so far, stdout and stderr */
  output(): string;
}

export interface ServeOptions {
  /** node's own arguments, before the script */
  nodeArgs?: string[];
  cwd?: string;
  /** for the whole start, retries included; default 45 s (under vitest's 60 s test and hook timeouts) */
  timeoutMs?: number;
  /** each process as soon as it is spawned, so a test's cleanup kills it even when the start times out */
  onSpawn?: (proc: ChildProcess) => void;
  /** a port to try first (the helper's own test hands it one already taken) */
  firstPort?: number;
}

export async function startServeProcess(
  env: Record<string, string | undefined>,
  opts: ServeOptions = {},
): Promise<ServeProcess> {
  const timeoutMs = opts.timeoutMs ?? 45_000;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const port = attempt === 1 && opts.firstPort ? opts.firstPort : await portFreeNow();
    const started = await startOn(port, env, opts, deadline);
    if (started.up) return started.server;
    const out = started.server.output();
    if (attempt < 5 && out.includes('EADDRINUSE') && Date.now() < deadline) continue;
    throw new Error(`formcast serve on port ${port}: ${started.why}\n${out.slice(-4000)}`);
  }
}

async function startOn(
  port: number,
  env: Record<string, string | undefined>,
  opts: ServeOptions,
  deadline: number,
): Promise<{ up: true; server: ServeProcess } | { up: false; server: ServeProcess; why: string }> {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  opts.onSpawn?.(proc);
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const closed = new Promise((resolve) => proc.once('close', resolve));
  const base = `http://127.0.0.1:${port}`;
  const server: ServeProcess = { proc, port, base, output: () => out };
  const gone = () => proc.exitCode !== null || proc.signalCode !== null;
  for (;;) {
    if (gone()) {
      await closed; // its last words read
      return { up: false, server, why: `exited (${proc.exitCode ?? proc.signalCode}) before it answered /health` };
    }
    try {
      // bounded: a port held by something that accepts and never answers must not hold the loop
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) });
      if (res.ok && !gone()) return { up: true, server };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      await closed;
      return { up: false, server, why: 'no answer from /health in time' };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A port of this fork's slice that nothing listens on now. */
async function portFreeNow(): Promise<number> {
  const fork = Math.max(0, (Number(process.env.VITEST_POOL_ID) || 1) - 1) % 8;
  const low = FIRST_PORT + fork * PORTS_PER_FORK;
  for (;;) {
    const port = low + Math.floor(Math.random() * PORTS_PER_FORK);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
