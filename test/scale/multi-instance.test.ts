import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, freshPostgresUrl, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { startS3 } from '../helpers/s3.js';
import { corpusDir } from '../helpers/corpus.js';
import { acquireLease, leaseHolder } from '../../src/modules/housekeeping/leases.js';
import { fetchStatus } from '../helpers/fetch-status.js';

const pgUrl = process.env.TEST_DATABASE_URL;
const corpus = corpusDir();

describe.skipIf(!pgUrl || !corpus)(
  `two instances on one PostgreSQL and one bucket${pgUrl ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  () => {
    let one: TestServer;
    let two: TestServer;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const db = await freshPostgresUrl();
      const s3 = await startS3();
      const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
      writeFileSync(path.join(dir, 'plans.json'), JSON.stringify({ Business: { rendersPerMonth: 3 } }));
      const env = {
        ...s3.env,
        DATABASE_URL: db.url,
        PLANS_FILE: path.join(dir, 'plans.json'),
        SIGNING_SECRET: 'x'.repeat(40),
      };
      // both start at once on an empty database: the migrations must run exactly once
      [one, two] = await Promise.all([startServer('postgres', { env }), startServer('postgres', { env })]);
      cleanup = async () => {
        await one?.close();
        await two?.close();
        await db.drop();
        await s3.stop();
      };
    });
    afterAll(async () => cleanup?.());

    it('shares accounts, templates and renders across instances', async () => {
      const tpl = (
        await api(one, one.b).post(
          '/v1/templates',
          uploadForm(readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf')), 'r.pdf'),
        )
      ).json.data;
      const viaTwo = await api(two, one.b).get(`/v1/templates/${tpl.id}`);
      expect(viaTwo.status).toBe(200);
      const render = (await api(two, one.b).post('/v1/renders', { templateId: tpl.id, data: {} })).json.data;
      expect(await fetchStatus(render.downloadUrl)).toBe(200);
      expect((await api(one, one.b).get(`/v1/renders/${render.renderId}`)).status).toBe(200);
    });

    it('keeps the render quota exact across instances: 40 parallel renders with 3 left give 3 successes', async () => {
      const t = await one.newTenant('Business');
      const tpl = (
        await api(one, t).post(
          '/v1/templates',
          uploadForm(readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf')), 'r.pdf'),
        )
      ).json.data;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          api(i % 2 ? one : two, t).post('/v1/renders', { templateId: tpl.id, data: {} }),
        ),
      );
      // any other answer is named, with its code (a failure says what it was)
      const others = results.filter((r) => r.status !== 201 && r.status !== 429);
      expect(others.map((r) => `${r.status} ${r.json?.error?.code}: ${r.json?.error?.message}`)).toEqual([]);
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      expect(results.filter((r) => r.status === 429)).toHaveLength(37);
    });

    it('lets only one instance hold the sweeper lease at a time', async () => {
      const got = await Promise.all([
        acquireLease(one.runtime, 'test-lease', leaseHolder(one.runtime), 60_000),
        acquireLease(two.runtime, 'test-lease', leaseHolder(two.runtime), 60_000),
      ]);
      expect(got.filter(Boolean)).toHaveLength(1);
    });
  },
);
