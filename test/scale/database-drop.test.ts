// A real PostgreSQL behind a loopback TCP proxy we can cut: the service survives dropped
// connections (pg_terminate_backend, a database restart, a proxy closing connections), answers
// 503 SERVICE_UNAVAILABLE with Retry-After while the database is away, keeps /health at 200 and
// /ready at 503, and recovers by itself when the database is back.
import net from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { api, freshPostgresUrl, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const pgUrl = process.env.TEST_DATABASE_URL;
const corpus = corpusDir();

/** A TCP proxy to PostgreSQL that can drop every connection and refuse new ones, then come back. */
/** Polls `check` until it holds (the bound is generous: a busy 2-core machine). */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

class CuttableProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  async up(): Promise<void> {
    if (this.server?.listening) return;
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** The database "goes away": open connections are reset and new ones refused. */
  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const s of this.sockets) s.resetAndDestroy();
    await closed;
  }
}

describe.skipIf(!pgUrl || !corpus)(
  `PostgreSQL connections dropped under a running service${pgUrl ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  () => {
    let s: TestServer;
    let proxy: CuttableProxy;
    let schema: string;
    let drop: () => Promise<void>;
    let templateId: string;

    beforeAll(async () => {
      const fresh = await freshPostgresUrl();
      schema = fresh.schema;
      drop = fresh.drop;
      const u = new URL(fresh.url);
      proxy = new CuttableProxy(u.hostname, Number(u.port || 5432));
      await proxy.up();
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      s = await startServer('postgres', { env: { DATABASE_URL: u.toString() } });
      const up = await api(s, s.b).post(
        '/v1/templates',
        uploadForm(readFileSync(path.join(corpus!, 'pdfs/pdfjs-required-fields.pdf')), 'req.pdf'),
      );
      expect(up.status).toBe(201);
      templateId = up.json.data.id;
    });
    afterAll(async () => {
      await s?.close();
      await drop?.();
    });

    it('survives pg_terminate_backend of all its connections and answers again at once', async () => {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      try {
        const killed = await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
          [schema],
        );
        expect(killed.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      // Whatever the pool held is gone; the next queries open new connections.
      await until(async () => (await api(s, s.b).get(`/v1/templates/${templateId}`)).status === 200, 10_000);
      expect((await api(s, s.b).get('/v1/templates')).status).toBe(200);
    });

    it('answers 503 with Retry-After while the database is away, keeps /health up, and recovers', async () => {
      await proxy.down();
      try {
        const res = await api(s, s.b).get(`/v1/templates/${templateId}`);
        expect(res.status).toBe(503);
        expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        const render = await api(s, s.b).post('/v1/renders', { templateId, data: {} });
        expect(render.status).toBe(503);
        const ready = await api(s).get('/ready');
        expect(ready.status).toBe(503);
        // answered through the error handler, in the one error envelope
        expect(ready.json).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: 'database unreachable' } });
        expect((await api(s).get('/health')).status).toBe(200);
      } finally {
        await proxy.up();
      }
      await until(async () => (await api(s).get('/ready')).status === 200, 15_000);
      const render = await api(s, s.b).post('/v1/renders', { templateId, data: {} });
      expect(render.status).toBe(201);
    });
  },
);
