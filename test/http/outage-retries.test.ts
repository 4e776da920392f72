// Accepted async work survives storage outages longer than a few quick retries: an async render keeps
// being retried (with capped backoff) through an outage of many claims and completes exactly once when
// storage is back; only after JOB_RETRY_HOURS does it fail. A batch whose combined file cannot be stored
// backs off (2 s, 4 s, …) instead of spinning, completes once storage is back, and gives up with a
// combineError after the same window. The faults are real: the account's folder replaced by a file.
// The clock is a TestClock, so backoffs and the window pass when the test says, not by sleeping.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { api, DATABASES, startServer, TestClock, type TestServer, uploadForm } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { fetchStatus } from '../helpers/fetch-status.js';

const corpus = corpusDir();
const HOUR = 3_600_000;

describe.skipIf(!corpus).each(DATABASES.filter((d) => d.enabled))(
  'async work through a storage outage ($label, files in a folder)',
  ({ name }) => {
    let s: TestServer;
    let clock: TestClock;
    let templateId: string;

    beforeAll(async () => {
      clock = new TestClock(Date.parse('2030-06-10T08:00:00Z'));
      s = await startServer(name, { overrides: { clock }, env: { JOB_POLL_MS: '50', S3_BUCKET: '' } });
      const bytes = readFileSync(path.join(corpus!, 'pdfs/irs-fw9-2018.pdf'));
      templateId = (await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'w9.pdf'))).json.data.id;
      // a first render makes the account's folders
      expect((await api(s, s.b).post('/v1/renders', { templateId, data: { f1_1: 'first' } })).status).toBe(201);
    });
    afterAll(() => s?.close());

    /** Replaces one of the account's folders with a file, so every write into it fails; returns the cure. */
    const breakFolder = (kind: 'renders' | 'batches') => {
      const folder = path.join(s.config.dataDir, 'files', kind, s.b.accountId);
      mkdirSync(folder, { recursive: true });
      renameSync(folder, `${folder}.away`);
      writeFileSync(folder, 'not a folder');
      return () => {
        rmSync(folder);
        renameSync(`${folder}.away`, folder);
      };
    };
    const job = (id: string) =>
      s.runtime.db.selectFrom('render_jobs').selectAll().where('render_id', '=', id).executeTakeFirst();
    const batchRow = (id: string) =>
      s.runtime.db.selectFrom('render_batches').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const render = async (id: string) => (await api(s, s.b).get(`/v1/renders/${id}`)).json.data;
    const used = async () => (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used as number;
    /** Waits until the job was given back after at least `attempts` claims, then lets its backoff pass. */
    const afterAttempt = async (id: string, attempts: number) => {
      await until(async () => {
        const j = await job(id);
        return j && j.attempts >= attempts && j.lease_owner === null ? true : undefined;
      }, `attempt ${attempts} of ${id}`);
      clock.advance(61_000);
    };

    it('retries an async render through an outage of many attempts, completes it once, and charges it once', async () => {
      const usedBefore = await used();
      const cure = breakFolder('renders');
      const res = await api(s, s.b).post('/v1/renders', {
        templateId,
        data: { f1_1: 'later' },
        options: { async: true },
      });
      expect(res.status).toBe(202);
      const id = res.json.data.renderId;
      // the old policy failed the render after 5 claims; now 8 claims later it still waits
      try {
        for (let attempt = 1; attempt <= 8; attempt++) await afterAttempt(id, attempt);
        expect((await render(id)).status).toBe('pending');
      } finally {
        cure();
      }
      // The runner may have claimed it once more between the last advance and the cure (its polls do
      // not wait for the test): such a claim fails too and backs off, so pass each backoff it waits on.
      const done = await until(async () => {
        const r = await render(id);
        if (r.status !== 'pending') return r;
        const j = await job(id);
        if (j && j.lease_owner === null && Date.parse(j.run_after) > clock.now().getTime()) clock.advance(61_000);
        return undefined;
      }, 'the render after the outage');
      expect(done.status).toBe('completed');
      expect(await job(id)).toBeUndefined();
      expect(await fetchStatus(done.downloadUrl)).toBe(200);
      expect(await used()).toBe(usedBefore + 1);
      const completed = await s.runtime.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'render.completed')
        .where('account_id', '=', s.b.accountId)
        .execute();
      expect(completed.filter((e) => JSON.parse(e.data).id === id)).toHaveLength(1);
    });

    it('fails an async render once the outage outlasts JOB_RETRY_HOURS, and releases its quota', async () => {
      const usedBefore = await used();
      const cure = breakFolder('renders');
      try {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId,
          data: { f1_1: 'never' },
          options: { async: true },
        });
        const id = res.json.data.renderId;
        await afterAttempt(id, 1);
        clock.advance(25 * HOUR);
        const failed = await until(async () => {
          const r = await render(id);
          return r.status === 'pending' ? undefined : r;
        }, 'the render after the retry window');
        expect(failed.status).toBe('failed');
        expect(failed.error.code).toBe('RENDER_FAILED');
        expect(failed.error.message).toContain('unavailable for 24 h');
        expect(await used()).toBe(usedBefore);
      } finally {
        cure();
      }
    });

    it('backs off finishing a batch whose combined file cannot be stored, then completes it, or gives up after the window', async () => {
      const cure = breakFolder('batches');
      const items = [1, 2].map((n) => ({ templateId, data: { f1_1: `item ${n}` } }));
      const created = await api(s, s.b).post('/v1/renders/batch', { combine: true, items });
      expect(created.status, created.text).toBe(202);
      const id = created.json.data.id;

      // first fault: the claim is kept for 2 s; nothing retries until the clock passes it
      const first = await until(async () => {
        const b = await batchRow(id);
        return b.lease_expires_at && Date.parse(b.lease_expires_at) === clock.now().getTime() + 2_000 ? b : undefined;
      }, 'the first backoff');
      expect(first.status).toBe('pending');
      clock.advance(2_001);
      const second = await until(async () => {
        const b = await batchRow(id);
        return b.lease_expires_at && Date.parse(b.lease_expires_at) === clock.now().getTime() + 4_000 ? b : undefined;
      }, 'the second, longer backoff');
      expect(second.status).toBe('pending');

      cure();
      clock.advance(4_001);
      const done = await until(async () => {
        const b = (await api(s, s.b).get(`/v1/render-batches/${id}`)).json.data;
        return b.status === 'completed' ? b : undefined;
      }, 'the batch after the outage');
      expect(done.combineError ?? null).toBeNull();
      expect(await fetchStatus(done.combinedDownloadUrl)).toBe(200);

      // the same fault for longer than the window: completed, its items kept, the combined file given up
      const cure2 = breakFolder('batches');
      try {
        const again = await api(s, s.b).post('/v1/renders/batch', { combine: true, items });
        const id2 = again.json.data.id;
        await until(async () => ((await batchRow(id2)).lease_expires_at ? true : undefined), 'a claim');
        await until(async () => {
          const b = await batchRow(id2);
          return b.lease_expires_at && Date.parse(b.lease_expires_at) > clock.now().getTime() + 1_000
            ? true
            : undefined;
        }, 'the backoff');
        clock.advance(25 * HOUR);
        const given = await until(async () => {
          const b = (await api(s, s.b).get(`/v1/render-batches/${id2}`)).json.data;
          return b.status === 'completed' ? b : undefined;
        }, 'the batch after the window');
        expect(given.combineError).toContain('storage unavailable for 24 h');
        expect(given.progress.completed).toBe(2);
      } finally {
        cure2();
      }
    });
  },
);
