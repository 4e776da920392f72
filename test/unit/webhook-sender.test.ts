// The webhook sender's guard rails on real sockets: which addresses are forbidden (odd IPv4 spellings
// normalised by WHATWG URL, IPv6 forms carrying IPv4), the connect-time check, the time budget, the
// bounded read of the answer and redirects left unfollowed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/adapters/webhook-sender/address-policy.js';
import { HttpWebhookSender, urlFormProblem } from '../../src/adapters/webhook-sender/http-webhook-sender.js';

describe('forbidden addresses', () => {
  const forbidden = [
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '::',
    '0.0.0.0',
    '10.0.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.100.100.200',
    '192.0.0.192',
    '224.0.0.1',
    '255.255.255.255',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    'fd00:ec2::254',
    'fe80::1%eth0',
    'ff02::1',
    '[::1]',
    'not-an-ip',
  ];
  const allowed = ['93.184.215.14', '1.1.1.1', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::'];
  for (const a of forbidden) it(`forbids ${a}`, () => expect(isForbiddenAddress(a)).toBe(true));
  for (const a of allowed) it(`allows ${a}`, () => expect(isForbiddenAddress(a)).toBe(false));

  it('judges the address WHATWG URL makes of odd spellings', () => {
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://127.1/']) {
      expect(urlFormProblem(url, false), url).toMatch(/127\.0\.0\.1 is a loopback/);
    }
    expect(urlFormProblem('https://[::ffff:127.0.0.1]/', false)).toMatch(/loopback/);
    expect(urlFormProblem('https://93.184.215.14/', false)).toBe(null);
    expect(urlFormProblem('http://127.0.0.1/', true)).toBe(null);
    expect(urlFormProblem('file:///etc/passwd', true)).toMatch(/https: or http:/);
  });
});

describe('sending', () => {
  let server: http.Server;
  let base: string;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests++;
      if (req.url === '/silent') return; // never answers
      if (req.url === '/big') {
        res.writeHead(200);
        res.write(Buffer.alloc(1 << 20, 'x'));
        return; // and never ends: the read stops at the bound anyway
      }
      if (req.url === '/redirect') {
        res.writeHead(307, { location: `${base}/ok` });
        return res.end();
      }
      if (req.url === '/then-stall') {
        // the answer is out; then this process stalls past the sender's budget (as a loaded or
        // starting server's event loop can), so its timer and the answer are both due when it resumes
        res.on('finish', () => {
          const until = performance.now() + 1500;
          while (performance.now() < until);
        });
      }
      req.resume();
      req.on('end', () => res.end('fine'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const send = (sender: HttpWebhookSender, path: string) =>
    sender.send({ url: base + path, headers: { 'content-type': 'application/json' }, body: '{}' });

  it('refuses at connect time a name that resolves to loopback, without connecting', async () => {
    const before = requests;
    const sender = new HttpWebhookSender({ allowPrivate: false, timeoutMs: 5000 });
    const port = new URL(base).port;
    const res = await sender.send({ url: `https://localhost:${port}/ok`, headers: {}, body: '{}' });
    expect(res.statusCode).toBe(null);
    expect(res.error).toMatch(/localhost resolves to .*loopback/);
    expect(requests).toBe(before);
  });

  it('gives up on a silent receiver within the time budget', async () => {
    const sender = new HttpWebhookSender({ allowPrivate: true, timeoutMs: 300 });
    const res = await send(sender, '/silent');
    expect(res).toMatchObject({ statusCode: null, error: 'no answer within 300 ms' });
    expect(res.durationMs).toBeLessThan(5000);
  });

  it('takes an answer that arrived while the process stalled past the budget, not the timeout', async () => {
    // 1 s for the connection, the request and the answer before the stall, even on a loaded machine
    const sender = new HttpWebhookSender({ allowPrivate: true, timeoutMs: 1000 });
    const res = await send(sender, '/then-stall');
    expect(res).toMatchObject({ statusCode: 200, error: null, responseBody: 'fine' });
    expect(res.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it('reads at most 4 KiB of an answer and keeps its status', async () => {
    const sender = new HttpWebhookSender({ allowPrivate: true, timeoutMs: 5000 });
    const res = await send(sender, '/big');
    expect(res.statusCode).toBe(200);
    expect(res.error).toBe(null);
    expect(res.responseBody.length).toBe(4096);
  });

  it('does not follow redirects', async () => {
    const before = requests;
    const sender = new HttpWebhookSender({ allowPrivate: true, timeoutMs: 5000 });
    const res = await send(sender, '/redirect');
    expect(res.statusCode).toBe(307);
    expect(res.error).toMatch(/redirect \(307\) not followed/);
    expect(requests).toBe(before + 1);
  });
});
