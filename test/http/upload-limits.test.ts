import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Tenant, type TestServer } from '../helpers/server.js';

// An upload over the plan limit must get an answer the client can read: 413 FILE_TOO_LARGE through
// Node's own fetch (undici), not EPIPE or a reset, whether the size was declared or the body is chunked,
// and the server must stop reading near the limit instead of swallowing the whole body.

const MB = 1024 * 1024;
const BOUNDARY = 'formcastboundary';
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
);

/** A multipart body of `size` file bytes produced on demand; `pulled()` says how much the sender read. */
function streamedUpload(size: number) {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(HEAD);
      if (sent >= size) {
        controller.enqueue(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
        controller.close();
        return;
      }
      sent += MB;
      controller.enqueue(new Uint8Array(MB));
    },
  });
  return { body, pulled: () => sent };
}

describe('oversized uploads get a readable 413 (SQLite + folder)', () => {
  let s: TestServer;
  let free: Tenant;
  beforeAll(async () => {
    s = await startServer('sqlite');
    free = s.a; // Free: 10 MB
  });
  afterAll(async () => s?.close());

  const post = (body: RequestInit['body'], headers: Record<string, string> = {}) =>
    fetch(`${s.url}/v1/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${free.key}`, ...headers },
      body,
      duplex: 'half',
    } as RequestInit);

  it('answers 413 to a declared 100 MB upload, readable by fetch', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(100 * MB)], { type: 'application/pdf' }), 'big.pdf');
    const res = await post(form);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('FILE_TOO_LARGE');
  });

  it('answers 413 to a 300 MB chunked upload without Content-Length, readable by fetch, reading little of it', async () => {
    const up = streamedUpload(300 * MB);
    const res = await post(up.body, { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('FILE_TOO_LARGE');
    expect(up.pulled()).toBeLessThan(100 * MB);
  });

  it('leaves no listener behind on a kept-alive connection after each early answer', async () => {
    const sockets: Socket[] = [];
    const onConnection = (socket: Socket) => sockets.push(socket);
    s.app.server.on('connection', onConnection);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // a body whose second half is sent only after the answer: the server answers 401 before reading it
    // all, then drains the rest, and the connection stays open for the next request
    const earlyAnswer = () =>
      new Promise<number>((resolve, reject) => {
        const body = Buffer.alloc(64 * 1024, 0x61);
        const req = http.request(`${s.url}/v1/templates`, {
          method: 'POST',
          agent,
          headers: {
            authorization: 'Bearer fc_live_0000000000000000000000000000bad0',
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
            'content-length': String(body.length),
          },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => {
            req.end(body.subarray(1024));
            resolve(res.statusCode ?? 0);
          });
        });
        req.write(body.subarray(0, 1024));
      });
    // A request on the same connection is read only after the previous body's last byte, so once its
    // answer is here every earlier drain has ended.
    const health = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${s.url}/health`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
    try {
      expect(await health()).toBe(200);
      const before = sockets[0]!.listenerCount('close');
      for (let i = 0; i < 15; i++) expect(await earlyAnswer()).toBe(401);
      expect(await health()).toBe(200);
      expect(sockets.length).toBe(1); // one connection, kept alive throughout
      expect(sockets[0]!.listenerCount('close')).toBe(before);
    } finally {
      agent.destroy();
      s.app.server.off('connection', onConnection);
    }
  });

  it('keeps serving the same client afterwards', async () => {
    const res = await fetch(`${s.url}/health`);
    expect(res.status).toBe(200);
  });
});
