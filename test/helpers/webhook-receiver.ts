import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A real webhook receiver on loopback: records every request, verifies its Standard Webhooks signature
// with the `standardwebhooks` package against the secrets it is told about, and answers what the test
// scripts (a queue of statuses; 200 once it is empty; 'hold' keeps the request open without answering).

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: any;
  /** which of the known secrets verified it (indexes into `secrets`); empty when none did */
  verifiedBy: number[];
  status: number | 'hold';
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** secrets to verify with; set after creating the endpoint */
  secrets: string[];
  /** answers for the next requests, in order */
  script: (number | 'hold')[];
  /** when set (and the script is empty), decides the answer from what was received so far */
  answer?: (id: string, seenBefore: number) => number;
  /** extra headers per status (e.g. Location for a redirect) */
  headers: Record<string, string>;
  /** requests answered 2xx with a valid signature, per webhook-id */
  deliveredOnce(id: string): number;
  waitFor(what: string, probe: () => boolean, ms?: number): Promise<void>;
  /** connections accepted (whether or not a request followed) */
  connections: number;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const held: http.ServerResponse[] = [];
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    secrets: [],
    script: [],
    headers: {},
    connections: 0,
    deliveredOnce(id) {
      return r.received.filter(
        (x) => x.id === id && x.verifiedBy.length > 0 && typeof x.status === 'number' && x.status < 300,
      ).length;
    },
    async waitFor(what, probe, ms = 60_000) {
      const until = Date.now() + ms;
      while (!probe()) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((res) => server.close(res));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const verifiedBy: number[] = [];
      r.secrets.forEach((secret, i) => {
        try {
          new Webhook(secret).verify(body, headers);
          verifiedBy.push(i);
        } catch {
          /* not signed with this one */
        }
      });
      const seen = r.received.filter((x) => x.id === headers['webhook-id']).length;
      const status = r.script.length ? r.script.shift()! : r.answer ? r.answer(headers['webhook-id'], seen) : 200;
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      r.received.push({
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        json,
        verifiedBy,
        status,
      });
      if (status === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain', ...r.headers });
      res.end(status < 300 ? 'ok' : `answer ${status}`);
    });
  });
  server.on('connection', () => {
    r.connections++;
  });
  await new Promise<void>((res) => server.listen(port, '127.0.0.1', res));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  return r;
}
