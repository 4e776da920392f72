import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import * as hostile from '../helpers/hostile-pdfs.js';

// Request bodies that arrive too slowly are cut with 408 REQUEST_TIMEOUT and our error envelope, while a
// slow but steady client still gets through. Short windows keep the test quick; the margins are wide
// (a trickle of ~10 B/s against a floor of 1,000 B/s, a steady sender at ~40 KB/s), so a busy machine
// cannot flip an outcome.

interface RawAnswer {
  status: number;
  body: any;
}

/** Send `head` then `body` over a raw socket, `chunk` bytes every `everyMs`; resolve with the answer. */
function trickle(
  url: string,
  head: string,
  body: Buffer,
  chunk: number,
  everyMs: number,
  giveUpMs: number,
): Promise<RawAnswer | 'no answer'> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= body.length) return;
      socket.write(body.subarray(sent, sent + chunk));
      sent += chunk;
    }, everyMs);
    const finish = (answer: RawAnswer | 'no answer') => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve(answer);
    };
    const giveUp = setTimeout(() => finish('no answer'), giveUpMs);
    socket.on('error', () => {});
    socket.on('data', (d) => {
      received += d.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(received.slice(0, end))?.[1] ?? NaN);
      const text = received.slice(end + 4);
      if (Buffer.byteLength(text, 'latin1') < length) return;
      finish({ status: Number(received.slice(9, 12)), body: JSON.parse(text) });
    });
    socket.on('close', () => finish('no answer'));
    socket.write(head);
  });
}

const SECONDS = 1000;

describe('request body time limits (SQLite + folder)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', {
      planA: 'Pro',
      env: { BODY_RATE_WINDOW_MS: '2000', BODY_MIN_BYTES_PER_SECOND: '1000', BODY_TIMEOUT_MS: '600000' },
    });
  });
  afterAll(async () => s?.close());

  const host = () => new URL(s.url).host;

  function multipartUpload(pdf: Buffer) {
    const boundary = 'formcastboundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const head = `POST /v1/templates HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${s.a.key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
    return { head, body };
  }

  it('cuts an upload trickling at a few bytes per second with 408 REQUEST_TIMEOUT', async () => {
    const { head, body } = multipartUpload(hostile.javascriptLaden());
    const answer = await trickle(s.url, head, body, 1, 100, 20 * SECONDS);
    expect(answer).not.toBe('no answer');
    expect(answer).toMatchObject({ status: 408, body: { error: { code: 'REQUEST_TIMEOUT' } } });
  });

  it('cuts a JSON body trickling at a few bytes per second with 408 REQUEST_TIMEOUT', async () => {
    const json = Buffer.from(JSON.stringify({ templateId: 'tpl_x', data: { name: 'x'.repeat(2000) } }));
    const head = `POST /v1/renders HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${s.a.key}\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`;
    const answer = await trickle(s.url, head, json, 1, 100, 20 * SECONDS);
    expect(answer).not.toBe('no answer');
    expect(answer).toMatchObject({ status: 408, body: { error: { code: 'REQUEST_TIMEOUT' } } });
  });

  it('lets a slow but steady upload through', async () => {
    // ~100 KB at 2 KB every 50 ms: several windows long, 40 times the floor
    const pdf = Buffer.concat([hostile.javascriptLaden(), Buffer.from(`\n%${'x'.repeat(100_000)}\n`)]);
    const { head, body } = multipartUpload(pdf);
    const answer = await trickle(s.url, head, body, 2048, 50, 60 * SECONDS);
    expect(answer).not.toBe('no answer');
    expect((answer as RawAnswer).status).toBe(201);
  });
});

describe('request body total deadline (SQLite + folder)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', { env: { BODY_MIN_BYTES_PER_SECOND: '0', BODY_TIMEOUT_MS: '1500' } });
  });
  afterAll(async () => s?.close());

  it('cuts a body still arriving at the deadline, however steady', async () => {
    const json = Buffer.from(JSON.stringify({ templateId: 'tpl_x', data: { name: 'x'.repeat(100_000) } }));
    const head = `POST /v1/renders HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\nAuthorization: Bearer ${s.a.key}\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`;
    const answer = await trickle(s.url, head, json, 1000, 100, 20 * SECONDS); // ~10 s to send it all
    expect(answer).toMatchObject({ status: 408, body: { error: { code: 'REQUEST_TIMEOUT' } } });
  });
});
