// A render worker killed from outside (OOM killer, kill -9) is a server fault: the job is retried once
// on a fresh worker; a second death answers 503 SERVICE_UNAVAILABLE with Retry-After, never the
// client-fault 422 RENDER_FAILED / INVALID_PDF, and charges no quota.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolEngine } from '../../src/adapters/engine/pool-engine.js';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `render worker killed from outside [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 180_000 },
    () => {
      const held = heldJobs();
      let s: TestServer;
      let templateId: string;
      beforeAll(async () => {
        const pool = heldPool(held);
        s = await startServer(db.name, { overrides: { engine: poolEngine(pool, {}) }, planA: 'Pro' });
        const upload = api(s, s.a).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'));
        held.release(await held.next());
        const res = await upload;
        expect(res.status).toBe(201);
        templateId = res.json.data.id;
      });
      afterAll(async () => {
        await s?.close();
        held.cleanup();
      });

      it('retries a render once on a fresh worker and charges it once', async () => {
        const before = (await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used;
        const render = api(s, s.a).post('/v1/renders', { templateId, data: {} });
        const first = await held.next();
        held.kill(first);
        held.release(await held.next([first]));
        const res = await render;
        expect(res.status).toBe(201);
        expect(res.json.data.status).toBe('completed');
        expect((await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used).toBe(before + 1);
      });

      it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the fresh worker dies too, without charging', async () => {
        const before = (await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used;
        const failedBefore = (await api(s, s.a).get('/v1/renders?status=failed')).json.meta.total;
        const render = api(s, s.a).post('/v1/renders', { templateId, data: {} });
        const first = await held.next();
        held.kill(first);
        const second = await held.next([first]);
        held.kill(second);
        const res = await render;
        expect(res.status).toBe(503);
        expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used).toBe(before);
        expect((await api(s, s.a).get('/v1/renders?status=failed')).json.meta.total).toBe(failedBefore);
      });

      it('answers 503, not INVALID_PDF, for a valid upload whose analysis loses two workers', async () => {
        const upload = api(s, s.a).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'));
        const first = await held.next();
        held.kill(first);
        const second = await held.next([first]);
        held.kill(second);
        const res = await upload;
        expect(res.status).toBe(503);
        expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(res.headers.get('retry-after')).toBeTruthy();
      });
    },
  );
}
