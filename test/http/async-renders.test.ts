import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  DATABASES,
  startServer,
  uploadWithTextField,
  TestClock,
  uploadForm,
  type Tenant,
  type TestServer,
} from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { until } from '../helpers/until.js';
import { createJobSignal } from '../../src/modules/render-jobs/job-runner.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `async renders over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let clock: TestClock;
      let tpl: string;
      let field: string;

      beforeAll(async () => {
        clock = new TestClock();
        s = await startServer(db.name, { overrides: { clock }, env: { JOB_POLL_MS: '100' } });
        ({ tpl, field } = await uploadWithTextField(s, pdf('pdfjs-required-fields.pdf')));
      });
      afterAll(async () => s?.close());

      const get = (t: Tenant, id: string) => api(s, t).get(`/v1/renders/${id}`);
      const settled = (t: Tenant, id: string) =>
        until(async () => {
          const r = await get(t, id);
          return r.json.data.status === 'pending' ? undefined : r.json.data;
        }, `render ${id}`);
      const used = async (t: Tenant) => (await api(s, t).get('/v1/renders/usage')).json.data.renders.used as number;
      const events = (accountId: string, type: string) =>
        s.runtime.db
          .selectFrom('events')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('type', '=', type)
          .execute();

      it('answers 202 pending with a Location, then completes in the background with a working link and an event', async () => {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 'async hello', unknown: 1 },
          options: { async: true },
        });
        expect(res.status).toBe(202);
        const r = res.json.data;
        expect(r).toMatchObject({ status: 'pending', downloadUrl: null, fileSize: 0 });
        expect(r.warnings.length).toBeGreaterThan(0); // the unknown field, said at once
        expect(res.headers.get('location')).toBe(`/v1/renders/${r.renderId}`);
        const done = await settled(s.b, r.renderId);
        expect(done.status).toBe('completed');
        expect(done.fileSize).toBeGreaterThan(0);
        const dl = await fetch(done.downloadUrl);
        expect(dl.status).toBe(200);
        expect(
          Buffer.from(await dl.arrayBuffer())
            .subarray(0, 5)
            .toString(),
        ).toBe('%PDF-');
        const ev = (await events(s.b.accountId, 'render.completed')).map((e) => JSON.parse(e.data));
        const mine = ev.filter((d) => d.id === r.renderId);
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({ status: 'completed', downloadUrl: null, templateId: tpl });
      });

      it('honours Prefer: respond-async', async () => {
        const res = await api(s, s.b).post('/v1/renders', { templateId: tpl, data: {} }, { prefer: 'respond-async' });
        expect(res.status).toBe(202);
        expect(res.headers.get('preference-applied')).toBe('respond-async');
        expect((await settled(s.b, res.json.data.renderId)).status).toBe('completed');
      });

      it('validates at acceptance: a bad value is a 422 and reserves nothing', async () => {
        const before = await used(s.b);
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [field]: 42 },
          options: { async: true },
        });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('VALIDATION_ERROR');
        expect(await used(s.b)).toBe(before);
      });

      it('emits render.completed for synchronous renders too', async () => {
        const res = await api(s, s.b).post('/v1/renders', { templateId: tpl, data: {} });
        expect(res.status).toBe(201);
        const ev = (await events(s.b.accountId, 'render.completed')).map((e) => JSON.parse(e.data));
        expect(ev.some((d) => d.id === res.json.data.renderId)).toBe(true);
      });
    },
  );

  // The job runner here is woken only when the test opens the gate (and polls every 10 min): a job
  // accepted stays pending, deterministically, while the test looks at it.
  describe.skipIf(!db.enabled || !corpus)(`a pending async render [${db.label}]`, () => {
    let s: TestServer;
    let tpl: string;
    const gate = { open: false };
    beforeAll(async () => {
      const signal = createJobSignal();
      s = await startServer(db.name, {
        overrides: { jobs: { wake: () => gate.open && signal.wake(), listen: signal.listen } },
        env: { JOB_POLL_MS: '600000' },
      });
      tpl = (await api(s, s.b).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'req.pdf'))).json.data
        .id;
    });
    afterAll(async () => s?.close());
    const get = (t: Tenant, id: string) => api(s, t).get(`/v1/renders/${id}`);
    const settled = (t: Tenant, id: string) =>
      until(async () => {
        const r = await get(t, id);
        return r.json.data.status === 'pending' ? undefined : r.json.data;
      }, `render ${id}`);
    const used = async (t: Tenant) => (await api(s, t).get('/v1/renders/usage')).json.data.renders.used as number;
    const events = (accountId: string, type: string) =>
      s.runtime.db
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('type', '=', type)
        .execute();

    it('lists and filters pending renders, reserves quota at acceptance and releases it on failure', async () => {
      const t = s.b;
      const own = tpl;
      const res = await api(s, t).post('/v1/renders', { templateId: own, data: {}, options: { async: true } });
      expect(res.status).toBe(202);
      const id = res.json.data.renderId;
      expect(await used(t)).toBe(1);
      const pending = await api(s, t).get('/v1/renders?status=pending');
      expect(pending.json.data.map((x: { id: string }) => x.id)).toEqual([id]);
      expect((await api(s, t).get('/v1/renders')).json.meta.total).toBe(1);
      expect((await api(s, t).get('/v1/renders?status=completed')).json.meta.total).toBe(0);
      expect((await get(t, id)).json.data).toMatchObject({ status: 'pending', downloadUrl: null });
      expect((await api(s, t).delete(`/v1/renders/${id}`)).status).toBe(409);
      // the template goes before the job runs: the render fails and gives its quota back
      expect((await api(s, t).delete(`/v1/templates/${own}`)).status).toBe(204);
      gate.open = true;
      s.runtime.jobs.wake();
      const failed = await settled(t, id);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'TEMPLATE_NOT_FOUND' } });
      expect(await used(t)).toBe(0);
      const ev = (await events(t.accountId, 'render.failed')).map((e) => JSON.parse(e.data));
      expect(ev.map((d) => d.id)).toEqual([id]);
    });
  });
}
