// The client's retries against a real server: 429 RATE_LIMITED and 503 are retried after Retry-After
// (the waits go through an injected sleep that moves the server's clock, so no test waits for real);
// RENDER_LIMIT_REACHED is not: the monthly quota does not come back within a retry loop.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createClient, FormcastError } from '../../packages/client/src/index.js';
import { loadConfig } from '../../src/config.js';
import { EngineBusyError } from '../../src/errors.js';
import { inProcessEngine } from '../../src/adapters/engine/in-process-engine.js';
import type { RenderEngine } from '../../src/ports/render-engine.js';
import { poolEngine } from '../../src/adapters/engine/pool-engine.js';
import { corpusDir } from '../helpers/corpus.js';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';
import { startServer, TestClock, type TestServer } from '../helpers/server.js';

const corpus = corpusDir();
const pdf = (name: string) => new Uint8Array(readFileSync(path.join(corpus!, 'pdfs', name)));

describe.skipIf(!corpus)('@formcast/client retries', () => {
  let s: TestServer;
  const clock = new TestClock(Date.parse('2031-03-10T09:00:30Z'));
  const plansDir = mkdtempSync(path.join(tmpdir(), 'plans-'));
  // The real engine, behind an admission that says "busy, retry in 2 s" as many times as a test asks.
  const config = loadConfig({});
  const real = inProcessEngine(config.limits, config.caches);
  let busyAnswers = 0;
  const engine: RenderEngine = {
    ...real,
    admit: () => {
      if (busyAnswers > 0) {
        busyAnswers--;
        throw new EngineBusyError(2);
      }
    },
  };
  /** Waits the client asked for, in ms; each one moves the server's clock by as much. */
  let slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
    clock.advance(ms);
  };

  beforeAll(async () => {
    writeFileSync(
      path.join(plansDir, 'plans.json'),
      JSON.stringify({ Free: { requestsPerMinute: 3 }, Pro: { rendersPerMonth: 1 } }),
    );
    s = await startServer('sqlite', {
      env: { PLANS_FILE: path.join(plansDir, 'plans.json') },
      overrides: { clock, engine },
    });
  });
  afterAll(async () => {
    await s?.close();
    rmSync(plansDir, { recursive: true, force: true });
  });

  it('retries 429 RATE_LIMITED after Retry-After seconds, then succeeds', async () => {
    slept = [];
    const t = await s.newTenant('Free'); // 3 requests a minute
    const client = createClient({ baseUrl: s.url, apiKey: t.key, retry: { sleep } });
    for (let i = 0; i < 3; i++) await client.usage.get();
    expect(slept).toEqual([]);
    // the 4th is refused with Retry-After: the end of the minute window; the client waits that long
    const usage = await client.usage.get();
    expect(usage.plan).toBe('Free');
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThan(0);
    expect(slept[0]).toBeLessThanOrEqual(60_000);
    expect(slept[0] % 1000).toBe(0);
  });

  it('gives up after maxAttempts, or at once without retries, with the 429 as a typed error', async () => {
    slept = [];
    const t = await s.newTenant('Free');
    const noRetry = createClient({ baseUrl: s.url, apiKey: t.key, retry: false });
    for (let i = 0; i < 3; i++) await noRetry.usage.get();
    const err = (await noRetry.usage.get().catch((e: unknown) => e)) as FormcastError;
    expect(err).toBeInstanceOf(FormcastError);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(err.retryAfter).toBeGreaterThan(0);

    // a sleep that does not move the clock: every attempt is refused, the last answer is thrown
    const waits: number[] = [];
    const stuck = createClient({
      baseUrl: s.url,
      apiKey: t.key,
      retry: { maxAttempts: 3, sleep: async (ms) => void waits.push(ms) },
    });
    await expect(stuck.usage.get()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(waits).toHaveLength(2);
  });

  it('does not wait longer than maxRetryAfter', async () => {
    const t = await s.newTenant('Free');
    const waits: number[] = [];
    const impatient = createClient({
      baseUrl: s.url,
      apiKey: t.key,
      retry: { maxRetryAfter: 0, sleep: async (ms) => void waits.push(ms) },
    });
    for (let i = 0; i < 3; i++) await impatient.usage.get();
    await expect(impatient.usage.get()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(waits).toEqual([]);
  });

  it('retries 503 SERVICE_UNAVAILABLE after its Retry-After, rendering once', async () => {
    slept = [];
    const t = await s.newTenant('Business');
    const client = createClient({ baseUrl: s.url, apiKey: t.key, retry: { sleep } });
    const tpl = await client.templates.upload(pdf('pdfjs-required-fields.pdf'));
    busyAnswers = 2;
    const render = await client.renders.create({ templateId: tpl.id, data: { Text1: 'after a busy spell' } });
    expect(render.status).toBe('completed');
    expect(slept).toEqual([2000, 2000]);
    expect((await client.usage.get()).renders.used).toBe(1);
  });

  it('does not retry RENDER_LIMIT_REACHED: its Retry-After is the next month', async () => {
    slept = [];
    const t = await s.newTenant('Pro'); // 1 render a month
    const client = createClient({ baseUrl: s.url, apiKey: t.key, retry: { sleep, maxRetryAfter: 100 * 24 * 3600 } });
    const tpl = await client.templates.upload(pdf('pdfjs-required-fields.pdf'));
    await client.renders.create({ templateId: tpl.id, data: {} });
    const err = (await client.renders
      .create({ templateId: tpl.id, data: {} })
      .catch((e: unknown) => e)) as FormcastError;
    expect(err).toBeInstanceOf(FormcastError);
    expect(err).toMatchObject({ status: 429, code: 'RENDER_LIMIT_REACHED', details: { used: 1, limit: 1 } });
    expect(err.retryAfter).toBeGreaterThan(20 * 24 * 3600); // 2031-03-10 to April
    expect(slept).toEqual([]);
  });
});

describe.skipIf(!corpus)('@formcast/client retries while the first request with its key runs', () => {
  const held = heldJobs();
  let s: TestServer;
  beforeAll(async () => {
    // a pool whose worker holds each job until the test releases it
    const pool = heldPool(held);
    s = await startServer('sqlite', { overrides: { engine: poolEngine(pool, {}) } });
  });
  afterAll(async () => {
    await s?.close();
    held.cleanup();
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_USE after Retry-After and gets the first render', async () => {
    const first = createClient({ baseUrl: s.url, apiKey: s.b.key });
    const uploading = first.templates.upload(pdf('pdfjs-required-fields.pdf'));
    held.release(await held.next());
    const tpl = await uploading;

    const body = { templateId: tpl.id, data: { Text1: 'once' } };
    const rendering = first.renders.create(body, { idempotencyKey: 'order-7' });
    const pid = await held.next(); // the first render is running, held in the worker
    const waits: number[] = [];
    const second = createClient({
      baseUrl: s.url,
      apiKey: s.b.key,
      // while the client waits, the first request finishes
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          held.release(pid);
          await rendering;
        },
      },
    });
    const replayed = await second.renders.create(body, { idempotencyKey: 'order-7' });
    expect(waits).toEqual([1000]); // Retry-After: 1
    expect(replayed.renderId).toBe((await rendering).renderId);
    expect((await first.usage.get()).renders.used).toBe(1);
  });

  it('retries a GET after a network failure, but not a POST without an Idempotency-Key', async () => {
    // a server that hangs up on every connection: fetch fails as on a network failure
    const hangUp = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
    onTestFinished(() => new Promise<void>((resolve) => hangUp.close(() => resolve())));
    const waits: number[] = [];
    const client = createClient({
      baseUrl: url,
      apiKey: 'fc_none',
      retry: { sleep: async (ms) => void waits.push(ms) },
    });
    // the caller gets a typed NETWORK_ERROR, not fetch's bare TypeError
    await expect(client.usage.get()).rejects.toMatchObject({ name: 'FormcastError', code: 'NETWORK_ERROR' });
    expect(waits).toEqual([500, 1000]);
    waits.length = 0;
    await expect(client.apiKeys.create('x')).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(waits).toEqual([]);
  });
});
