// The suite's real server processes (test/helpers/serve-process.ts): a port taken between the check and
// the bind must cost a restart on another port, not a test's whole health timeout.
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServeProcess } from '../helpers/serve-process.js';

describe('formcast serve as a test process', { timeout: 120_000 }, () => {
  it('starts again on another port when its port is taken, and says why when it cannot start', async () => {
    // taken by something that accepts connections and never answers them
    const held = new Set<net.Socket>();
    const taken = net.createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as net.AddressInfo).port;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-serve-process-'));
    try {
      const started = Date.now();
      const server = await startServeProcess(
        { DATA_DIR: dataDir, LOG_LEVEL: 'silent', RENDER_WORKERS: '0' },
        { firstPort: takenPort, timeoutMs: 90_000 },
      );
      try {
        expect(server.port).not.toBe(takenPort);
        expect((await fetch(`${server.base}/health`)).ok).toBe(true);
        // well within the health timeout: the first process's exit was seen, not waited out
        expect(Date.now() - started).toBeLessThan(90_000);
      } finally {
        const exited = new Promise((r) => server.proc.once('exit', r));
        server.proc.kill('SIGTERM');
        await exited;
      }
      // a start that fails for another reason is not retried, and its error carries the process's words
      await expect(
        startServeProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RENDER_WORKERS: 'many' }),
      ).rejects.toThrow(/exited \(1\) before it answered \/health[\s\S]*RENDER_WORKERS/);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((r) => taken.close(r));
    }
  });
});
