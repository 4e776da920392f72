// Several instances on one PostgreSQL and one bucket share async work: a batch accepted by one is run by
// every instance's job runner (claims with FOR UPDATE SKIP LOCKED), each item exactly once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, freshPostgresUrl, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { startS3 } from '../helpers/s3.js';
import { corpusDir } from '../helpers/corpus.js';
import { until } from '../helpers/until.js';
import { fetchStatus } from '../helpers/fetch-status.js';

const pgUrl = process.env.TEST_DATABASE_URL;
const corpus = corpusDir();
const ITEMS = 40;

describe.skipIf(!pgUrl || !corpus)(
  `batches across instances on one PostgreSQL${pgUrl ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  { timeout: 300_000 },
  () => {
    let one: TestServer;
    let two: TestServer;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const db = await freshPostgresUrl();
      const s3 = await startS3();
      const env = { ...s3.env, DATABASE_URL: db.url, SIGNING_SECRET: 'x'.repeat(40), JOB_POLL_MS: '100' };
      one = await startServer('postgres', { env });
      two = await startServer('postgres', { env });
      cleanup = async () => {
        await one?.close();
        await two?.close();
        await db.drop();
        await s3.stop();
      };
    });
    afterAll(async () => cleanup?.());

    it('completes a batch accepted by one instance, each item once, visible through the other', async () => {
      const pdf = readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf'));
      const tpl = (await api(one, one.b).post('/v1/templates', uploadForm(pdf, 'r.pdf'))).json.data.id;
      const res = await api(one, one.b).post('/v1/renders/batch', {
        combine: true,
        items: Array.from({ length: ITEMS }, () => ({ templateId: tpl, data: {} })),
      });
      expect(res.status).toBe(202);
      const id = res.json.data.id;
      const done = await until(async () => {
        const r = await api(two, one.b).get(`/v1/render-batches/${id}`);
        return r.json.data.status === 'completed' ? r.json.data : undefined;
      }, 'the batch');
      expect(done.progress).toEqual({ total: ITEMS, pending: 0, completed: ITEMS, failed: 0 });
      expect(await fetchStatus(done.combinedDownloadUrl)).toBe(200);
      const events = await one.runtime.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('account_id', '=', one.b.accountId)
        .execute();
      const completed = events.filter((e) => e.type === 'render.completed').map((e) => JSON.parse(e.data).id);
      expect(completed).toHaveLength(ITEMS);
      expect(new Set(completed).size).toBe(ITEMS);
      expect(events.filter((e) => e.type === 'render-batch.completed')).toHaveLength(1);
      expect((await api(two, one.b).get('/v1/renders/usage')).json.data.renders.used).toBe(ITEMS);
    });
  },
);
