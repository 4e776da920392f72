// `npm start` as an operator uses it: the server is the process npm waits for (no shell left between
// them), so stopping npm stops the server and frees its port; and npm says nothing about unknown
// project configuration on the way.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';
import { waitFor } from '../helpers/wait.js';

/** A port free now (the kernel's pick). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('npm start', { timeout: 120_000 }, () => {
  it('stops the server when npm is stopped, and prints no npm config warning', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'formcast-start-')),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
    });
    let output = '';
    npm.stdout.on('data', (d) => (output += d));
    npm.stderr.on('data', (d) => (output += d));
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    try {
      await waitFor(`http://127.0.0.1:${port}/health`, 60_000);
    } catch (err) {
      npm.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\n${output}`);
    }
    npm.kill('SIGTERM'); // npm itself, as a process manager or a terminal's Ctrl-C would
    await exited;
    // the server drains and exits; wait for its port to close (bounded generously, never a fixed sleep)
    const deadline = Date.now() + 60_000;
    while ((await listening(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await listening(port), 'the server outlived npm').toBe(false);
    expect(output).not.toMatch(/Unknown (project|env|user) config/);
  });
});
