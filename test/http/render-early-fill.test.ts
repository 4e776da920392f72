// A synchronous render starts its fill and its output's file beside the quota reservation
// (create-render.ts). When the reservation then refuses, both are discarded: nothing is stored, no temp
// file stays behind, nothing is charged. PostgreSQL makes the race deterministic: the test holds the
// account's row lock (the reservation's first step), so every request has passed its usage hint and
// started its fill before any reservation decides; then it lets them go with one render left.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const corpus = corpusDir();
const PG = !!process.env.TEST_DATABASE_URL;

describe.skipIf(!PG || !corpus)('a render refused after its fill started [PostgreSQL + folder]', () => {
  let s: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
    writeFileSync(path.join(dir, 'plans.json'), JSON.stringify({ Business: { rendersPerMonth: 2 } }));
    // S3_BUCKET empty: PostgreSQL with the folder store, whose temp files the test can see
    s = await startServer('postgres', { env: { PLANS_FILE: path.join(dir, 'plans.json'), S3_BUCKET: '' } });
  });
  afterAll(async () => s?.close());

  it('stores one file for the render that got the last unit, and leaves no temp file for the refused', async () => {
    const t = await s.newTenant('Business');
    const pdf = readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf'));
    const id = (await api(s, t).post('/v1/templates', uploadForm(pdf, 'r.pdf'))).json.data.id;
    expect((await api(s, t).post('/v1/renders', { templateId: id, data: {} })).status).toBe(201); // 1 of 2 used

    const url = s.config.database.kind === 'postgres' ? s.config.database.url : '';
    const holder = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from accounts where id = $1 for update', [t.accountId]);
      const fills = () => (s.runtime.engine.stats?.() as { dispatched?: number } | undefined)?.dispatched ?? 0;
      const before = fills();
      let settled = 0;
      const requests = Array.from({ length: 4 }, () =>
        api(s, t)
          .post('/v1/renders', { templateId: id, data: {} })
          .finally(() => settled++),
      );
      // every request now waits on the account's lock, its fill sent to the worker before it
      const schema = new URL(url).searchParams.get('application_name');
      const deadline = Date.now() + 30_000;
      for (let waiting = 0; waiting < 4 || fills() - before < 4; ) {
        expect(settled, 'a request was answered before the lock was released').toBe(0);
        if (Date.now() > deadline)
          throw new Error(`after 30 s: ${waiting} of 4 reservations waiting, ${fills() - before} of 4 fills sent`);
        await new Promise((r) => setTimeout(r, 50));
        const { rows } = await watcher.query(
          "select count(*)::int as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock' and query like '%for update%'",
          [schema],
        );
        waiting = rows[0].n;
      }
      await holder.query('commit');
      const results = await Promise.all(requests);
      expect(results.map((r) => r.status).sort()).toEqual([201, 429, 429, 429]);
      expect(results.find((r) => r.status === 429)?.json.error.code).toBe('RENDER_LIMIT_REACHED');
    } finally {
      await holder.end();
      await watcher.end();
    }

    const folder = path.join(s.config.dataDir, 'files', 'renders', t.accountId);
    // a refused request's output was abandoned before its answer went out
    const files = readdirSync(folder);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.pdf'))).toHaveLength(2);
    expect((await api(s, t).get('/v1/renders/usage')).json.data.renders).toEqual({ used: 2, limit: 2 });
  });
});
