// Under overload a render is shed before any expensive work: the engine's admission check comes
// before the template is loaded, the data validated or the quota touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineBusyError } from '../../src/errors.js';
import type { RenderEngine } from '../../src/ports/render-engine.js';
import { api, startServer, type TestServer } from '../helpers/server.js';

/** An engine that is always full (the worker pool's admission, in a state we choose). */
const fullEngine: RenderEngine = {
  analyse: () => Promise.reject(new Error('not used')),
  fill: () => Promise.reject(new Error('a shed render must not reach the engine')),
  combine: () => Promise.reject(new Error('not used')),
  editFields: () => Promise.reject(new Error('not used')),
  detectFields: () => Promise.reject(new Error('not used')),
  admit: () => {
    throw new EngineBusyError(7);
  },
};

describe('render admission under overload', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', { overrides: { engine: fullEngine } });
  });
  afterAll(async () => s?.close());

  it('answers 503 with the expected wait as Retry-After before loading the template or reserving quota', async () => {
    // A template that does not exist would be 404 if it were looked up.
    const res = await api(s, s.b).post('/v1/renders', { templateId: 'tpl_missing', data: {} });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('7');
    const usage = await api(s, s.b).get('/v1/renders/usage');
    expect(usage.json.data.renders.used).toBe(0);
  });

  it('keeps /health answering', async () => {
    expect((await api(s).get('/health')).status).toBe(200);
  });
});

describe('render durations', () => {
  it('measures durationMs on a monotonic timer, whatever the clock says', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { corpusDir } = await import('../helpers/corpus.js');
    const { TestClock, uploadForm } = await import('../helpers/server.js');
    const dir = corpusDir();
    if (!dir) return;
    // A clock years ahead of the machine's: a duration taken as machine time minus clock time goes negative.
    const s = await startServer('sqlite', { overrides: { clock: new TestClock(Date.parse('2031-01-01T00:00:00Z')) } });
    try {
      const up = await api(s, s.b).post(
        '/v1/templates',
        uploadForm(readFileSync(path.join(dir, 'pdfs/pdfjs-required-fields.pdf')), 'r.pdf'),
      );
      const res = await api(s, s.b).post('/v1/renders', { templateId: up.json.data.id, data: {} });
      expect(res.status).toBe(201);
      expect(res.json.data.durationMs).toBeGreaterThanOrEqual(0);
      expect(res.json.data.durationMs).toBeLessThan(60_000);
    } finally {
      await s.close();
    }
  });
});
