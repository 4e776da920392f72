import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/bootstrap.js';
import { buildApp } from '../../src/app.js';
import { createAccount } from '../../src/modules/accounts/accounts.js';
import type { Deps } from '../../src/deps.js';
import type { Clock } from '../../src/ports/clock.js';
import { startS3 } from './s3.js';

/**
 * Backends every HTTP suite runs against: SQLite + folder always; PostgreSQL + S3 (a real S3-protocol server
 * started on loopback) when TEST_DATABASE_URL is set.
 */
export const DATABASES = [
  { name: 'sqlite', label: 'SQLite + folder', enabled: true },
  { name: 'postgres', label: 'PostgreSQL + S3', enabled: Boolean(process.env.TEST_DATABASE_URL) },
] as const;
export type DbName = (typeof DATABASES)[number]['name'];

export interface Tenant {
  accountId: string;
  key: string;
}

export interface TestServer {
  url: string;
  runtime: Runtime;
  app: FastifyInstance;
  config: Config;
  /** downloads are the blob store's own pre-signed URLs (S3), not our signed links */
  nativeDownloads: boolean;
  /** two tenants, always seeded: a (Free by default) and b (Pro) */
  a: Tenant;
  b: Tenant;
  newTenant(plan: string): Promise<Tenant>;
  close(): Promise<void>;
}

/** A settable clock for retention and month-boundary tests. */
export class TestClock implements Clock {
  constructor(private t = Date.now()) {}
  now() {
    return new Date(this.t);
  }
  set(d: Date | string) {
    this.t = new Date(d).getTime();
  }
  advance(ms: number) {
    this.t += ms;
  }
}

/**
 * A fresh PostgreSQL schema per server, so suites can run in parallel on one database; its
 * connections carry the schema name as application_name.
 */
export async function freshPostgresUrl(): Promise<{ url: string; schema: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  u.searchParams.set('application_name', schema);
  return {
    url: u.toString(),
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}

export async function startServer(
  db: DbName = 'sqlite',
  opts: { env?: Record<string, string>; overrides?: Partial<Deps>; planA?: string; runtime?: RuntimeOptions } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'formcast-test-'));
  let dropSchema = async () => {};
  let stopS3 = async () => {};
  // one render worker per test server keeps parallel suites within the 2-core machine
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RENDER_WORKERS: '1',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    ...opts.env,
  };
  if (db === 'postgres') {
    const pgUrl = opts.env?.DATABASE_URL ? undefined : await freshPostgresUrl();
    if (pgUrl) {
      env.DATABASE_URL = pgUrl.url;
      dropSchema = pgUrl.drop;
    }
    // S3_BUCKET given (even empty, for PostgreSQL + folder) means: no S3 server of our own
    if (opts.env?.S3_BUCKET === undefined) {
      const s3 = await startS3();
      Object.assign(env, s3.env);
      stopS3 = s3.stop;
    }
  }
  const config = loadConfig(env);
  const runtime = await createRuntime(config, opts.overrides, opts.runtime);
  const app = await buildApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  // download links must point at the port we actually got
  runtime.config.publicUrl = url;
  const newTenant = async (plan: string): Promise<Tenant> => {
    const { account, apiKey } = await createAccount(runtime, { name: `tenant ${plan}`, plan });
    return { accountId: account.id, key: apiKey };
  };
  const a = await newTenant(opts.planA ?? 'Free');
  const b = await newTenant('Pro');
  return {
    url,
    runtime,
    app,
    config,
    nativeDownloads: Boolean(config.s3),
    a,
    b,
    newTenant,
    async close() {
      await app.close();
      await runtime.close();
      await dropSchema();
      await stopS3();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch with the tenant's key and JSON handling. */
export function api(server: { url: string }, tenant?: Tenant) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (tenant) h.authorization = `Bearer ${tenant.key}`;
    let payload: RequestInit['body'];
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(server.url + path, { method, headers: h, body: payload });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
  return {
    get: (p: string, h?: Record<string, string>) => call('GET', p, undefined, h),
    post: (p: string, body?: unknown, h?: Record<string, string>) => call('POST', p, body, h),
    put: (p: string, body?: unknown, h?: Record<string, string>) => call('PUT', p, body, h),
    patch: (p: string, body?: unknown, h?: Record<string, string>) => call('PATCH', p, body, h),
    delete: (p: string, h?: Record<string, string>) => call('DELETE', p, undefined, h),
  };
}

/** Uploads a form as `tenant` (tenant B by default) and names its first writable text field. */
export async function uploadWithTextField(
  s: TestServer,
  bytes: Uint8Array,
  tenant: Tenant = s.b,
): Promise<{ tpl: string; field: string }> {
  const tpl: string = (await api(s, tenant).post('/v1/templates', uploadForm(bytes, 'req.pdf'))).json.data.id;
  const fields = (await api(s, tenant).get(`/v1/templates/${tpl}/schema`)).json.data.schema.fields;
  const field: string = fields.find(
    (f: { type: string; pdfMeta: { readOnly?: boolean } }) => f.type === 'text' && !f.pdfMeta.readOnly,
  ).name;
  return { tpl, field };
}

/** A multipart body with a PDF `file` part and optional text fields. */
export function uploadForm(bytes: Uint8Array, fileName: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), fileName);
  return form;
}
