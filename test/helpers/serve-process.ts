// `formcast serve` as a real process on a port of its own. Its port is drawn below the kernel's ephemeral
// range (32768 and up on Linux), where the suite's thousands of client sockets and port-0 servers take
// theirs, and checked free just before; a server that still cannot bind (another test took the port in
// between) exits with EADDRINUSE and is started again on another port, instead of the test waiting out
// its health timeout against a process that is gone.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from './corpus.js';

const BIN = path.join(repoRoot, 'bin/formcast.js');
/** Kept of a server's stdout and stderr, for a failure's message and tests that read its logs. */
const OUTPUT_CHARS = 256 * 1024;

export interface ServeProcess {
  proc: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** what the process wrote so far (stdout and stderr, its last 256 KiB) */
  output(): string;
}

export async function startServeProcess(
  env: Record<string, string | undefined>,
  opts: { nodeArgs?: string[]; cwd?: string; timeoutMs?: number; firstPort?: number } = {},
): Promise<ServeProcess> {
  for (let attempt = 1; ; attempt++) {
    // firstPort: the helper's own test, which hands it a port already taken
    const port = attempt === 1 && opts.firstPort ? opts.firstPort : await portFreeNow();
    const started = await startOn(port, env, opts);
    if (started.up) return started.server;
    const out = started.server.output();
    if (attempt < 5 && out.includes('EADDRINUSE')) continue;
    throw new Error(`formcast serve on port ${port}: ${started.why}\n${out.slice(-4000)}`);
  }
}

async function startOn(
  port: number,
  env: Record<string, string | undefined>,
  opts: { nodeArgs?: string[]; cwd?: string; timeoutMs?: number },
): Promise<{ up: true; server: ServeProcess } | { up: false; server: ServeProcess; why: string }> {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > OUTPUT_CHARS) out = out.slice(-OUTPUT_CHARS);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const closed = new Promise((resolve) => proc.once('close', resolve));
  const base = `http://127.0.0.1:${port}`;
  const server: ServeProcess = { proc, port, base, output: () => out };
  const until = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await closed; // its last words read
      return { up: false, server, why: `exited (${proc.exitCode ?? proc.signalCode}) before it answered /health` };
    }
    try {
      // bounded: a port taken by something that accepts and never answers must not hold the loop
      if ((await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) })).ok) return { up: true, server };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) {
      proc.kill('SIGKILL');
      return { up: false, server, why: `no answer from /health within ${opts.timeoutMs ?? 60_000} ms` };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A port in 10000-32767 that nothing listens on now. */
async function portFreeNow(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 22_768);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
