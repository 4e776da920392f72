// One clock: records are dated by the Clock port (tests move it freely), durations are measured on the
// monotonic timer, so a clock moved backwards, even in the middle of a render, never yields a negative
// duration or a record dated by the machine instead of the clock.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { api, startServer, TestClock, uploadForm, type TestServer } from '../helpers/server.js';

const corpus = corpusDir();
const HOUR = 3_600_000;

/** A TestClock that moves back an hour after every reading: any duration taken from it goes negative. */
class BackwardsClock extends TestClock {
  readings: Date[] = [];
  override now(): Date {
    const d = super.now();
    this.readings.push(d);
    this.advance(-HOUR);
    return d;
  }
}

describe.skipIf(!corpus)('one clock', () => {
  let s: TestServer;
  const clock = new BackwardsClock(Date.parse('2030-06-15T12:00:00Z'));

  beforeAll(async () => {
    s = await startServer('sqlite', { overrides: { clock } });
  });
  afterAll(() => s?.close());

  it('measures durationMs on the monotonic timer while the clock moves backwards, and dates the render by the clock', async () => {
    const up = await api(s, s.b).post(
      '/v1/templates',
      uploadForm(readFileSync(path.join(corpus!, 'pdfs/pdfjs-required-fields.pdf')), 'r.pdf'),
    );
    expect(up.status).toBe(201);
    const before = clock.readings.length;
    const res = await api(s, s.b).post('/v1/renders', { templateId: up.json.data.id, data: {} });
    expect(res.status, res.text).toBe(201);
    // the clock was read during the render, each reading an hour before the previous one
    expect(clock.readings.length).toBeGreaterThan(before);
    expect(res.json.data.durationMs).toBeGreaterThanOrEqual(0);
    expect(res.json.data.durationMs).toBeLessThan(60_000);
    const detail = await api(s, s.b).get(`/v1/renders/${res.json.data.renderId}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json.data.durationMs).toBe(res.json.data.durationMs);
    const created = Date.parse(detail.json.data.createdAt);
    // a reading of the moved clock (2030), not the machine's time
    expect(clock.readings.slice(before).some((d) => d.getTime() === created)).toBe(true);
  });

  it("dates an API key's lastUsedAt by the clock", async () => {
    const t = await s.newTenant('Pro');
    const from = clock.readings.length;
    expect((await api(s, t).get('/v1/templates')).status).toBe(200);
    // lastUsedAt is written after the answer (bookkeeping off the request path): wait for it
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 200 && !lastUsedAt; i++) {
      const keys = await api(s, t).get('/v1/api-keys');
      lastUsedAt = keys.json.data.find((k: { lastUsedAt: string | null }) => k.lastUsedAt)?.lastUsedAt ?? null;
    }
    expect(lastUsedAt).not.toBeNull();
    const used = Date.parse(lastUsedAt!);
    expect(clock.readings.slice(from).some((d) => d.getTime() === used)).toBe(true);
  });
});
