// A synchronous render starts its fill and its output's file beside the quota reservation
// (create-render.ts), only when a worker is free. When the reservation then refuses, both are
// discarded: nothing is stored, no temp file stays behind, nothing is charged. Deterministic: PostgreSQL
// holds the account's row lock (the reservation's first step), and the one render worker holds each job
// until the test releases it (the pool's hold hook), so the test knows which fill is running when.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolEngine } from '../../src/adapters/engine/pool-engine.js';
import { corpusDir } from '../helpers/corpus.js';
import { heldJobs, heldPool } from '../helpers/held-jobs.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const corpus = corpusDir();
const PG = !!process.env.TEST_DATABASE_URL;

describe.skipIf(!PG || !corpus)('a render refused after its fill started [PostgreSQL + folder]', () => {
  const held = heldJobs();
  let s: TestServer;
  /** Releases every job the worker holds until `done` settles. */
  const releasing = async <T>(done: Promise<T>): Promise<T> => {
    let settled = false;
    void done.finally(() => (settled = true));
    while (!settled) {
      for (const pid of readdirSync(held.dir)) held.release(Number(pid));
      await new Promise((r) => setTimeout(r, 20));
    }
    return done;
  };
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
    writeFileSync(path.join(dir, 'plans.json'), JSON.stringify({ Business: { rendersPerMonth: 2 } }));
    const pool = heldPool(held);
    // S3_BUCKET empty: PostgreSQL with the folder store, whose temp files the test can see
    s = await startServer('postgres', {
      env: { PLANS_FILE: path.join(dir, 'plans.json'), S3_BUCKET: '' },
      overrides: { engine: poolEngine(pool, {}) },
    });
  });
  afterAll(async () => {
    await s?.close();
    held.cleanup();
  });

  it('starts a fill early only on a free worker, and leaves no temp file for a render refused after it', async () => {
    const t = await s.newTenant('Business');
    const pdf = readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf'));
    const upload = await releasing(api(s, t).post('/v1/templates', uploadForm(pdf, 'r.pdf')));
    const id = upload.json.data.id;
    expect((await releasing(api(s, t).post('/v1/renders', { templateId: id, data: {} }))).status).toBe(201); // 1 of 2

    const url = s.config.database.kind === 'postgres' ? s.config.database.url : '';
    const holder = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
    const stats = () => s.runtime.engine.stats?.() as unknown as { dispatched: number; queued: number; active: number };
    const before = stats().dispatched;
    try {
      await holder.query('begin');
      await holder.query('select id from accounts where id = $1 for update', [t.accountId]);
      // A: the worker is free, so its fill starts while its reservation waits on the lock
      const a = api(s, t).post('/v1/renders', { templateId: id, data: {} });
      await held.next();
      expect(stats().dispatched - before).toBe(1);
      // B: the worker is busy with A's fill: B's waits for its reservation instead of queueing
      const b = api(s, t).post('/v1/renders', { templateId: id, data: {} });
      const schema = new URL(url).searchParams.get('application_name');
      const deadline = Date.now() + 30_000;
      for (let waiting = 0; waiting < 2; ) {
        if (Date.now() > deadline) throw new Error(`after 30 s: ${waiting} of 2 reservations waiting on the lock`);
        await new Promise((r) => setTimeout(r, 50));
        const { rows } = await watcher.query(
          "select count(*)::int as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock' and query like '%for update%'",
          [schema],
        );
        waiting = rows[0].n;
      }
      expect(stats()).toMatchObject({ dispatched: before + 1, queued: 0, active: 1 });
      // Another instance takes the last render meanwhile (as its reservation would: a row of this month,
      // inserted under the lock): both are refused, and A's fill, already running, is discarded.
      const first = (await api(s, t).get('/v1/renders')).json.data[0].id;
      await holder.query('create temp table taken as select * from renders where id = $1', [first]);
      await holder.query("update taken set id = 'rnd_taken_by_another_instance'");
      await holder.query('insert into renders select * from taken');
      await holder.query('commit');
      const results = await releasing(Promise.all([a, b]));
      expect(results.map((r) => [r.status, r.json.error?.code])).toEqual([
        [429, 'RENDER_LIMIT_REACHED'],
        [429, 'RENDER_LIMIT_REACHED'],
      ]);
    } finally {
      await holder.end();
      await watcher.end();
    }

    const folder = path.join(s.config.dataDir, 'files', 'renders', t.accountId);
    // a refused request's output was abandoned before its answer went out
    const files = readdirSync(folder);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.pdf'))).toHaveLength(1);
    expect((await api(s, t).get('/v1/renders/usage')).json.data.renders).toEqual({ used: 2, limit: 2 });
  });
});
