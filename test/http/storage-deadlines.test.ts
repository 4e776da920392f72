// Storage calls have deadlines: with S3 behind a proxy that black-holes (accepts, never answers) or
// refuses, uploads, renders, template files and /ready answer 503 with Retry-After within the deadline
// instead of hanging; nothing is charged or recorded as failed; a server holding an async render in
// the black hole still shuts down; and everything works again once the store answers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { startS3 } from '../helpers/s3.js';
import { api, DATABASES, startServer, type TestServer, uploadForm } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { fetchStatus } from '../helpers/fetch-status.js';

const corpus = corpusDir();

describe.skipIf(!corpus).each(DATABASES.filter((d) => d.enabled))(
  'storage deadlines ($label database, S3 behind a faulty network)',
  ({ name }) => {
    it('answers 503 instead of hanging while S3 is black-holed or refused, and recovers', async () => {
      const s3 = await startS3();
      const proxy = await startFaultProxy(Number(new URL(s3.env.S3_ENDPOINT!).port));
      let s: TestServer | undefined;
      try {
        s = await startServer(name, {
          env: { ...s3.env, S3_ENDPOINT: proxy.url, S3_TIMEOUT_MS: '1500', TEMPLATE_FILE_CACHE_MB: '0' },
        });
        const server = s;
        const bytes = readFileSync(path.join(corpus!, 'pdfs/irs-fw9-2018.pdf'));
        const up = await api(server, server.b).post('/v1/templates', uploadForm(bytes, 'w9.pdf'));
        expect(up.status, up.text).toBe(201);
        const id = up.json.data.id;
        const render = () => api(server, server.b).post('/v1/renders', { templateId: id, data: { f1_1: 'Ada' } });
        expect((await render()).status).toBe(201);
        expect(await fetchStatus(`${server.url}/ready`)).toBe(200);

        for (const mode of ['blackhole', 'refuse'] as const) {
          proxy.setMode(mode);
          const ready = await fetch(`${server.url}/ready`);
          expect(ready.status, mode).toBe(503);
          expect(((await ready.json()) as any).error.message).toContain('file store');
          for (const res of [
            await render(),
            await api(server, server.b).get(`/v1/templates/${id}/file`),
            await api(server, server.b).post('/v1/templates', uploadForm(bytes, 'again.pdf')),
          ]) {
            expect(res.status, `${mode}: ${res.text}`).toBe(503);
            expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
            expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          }
        }
        const usage = (await api(server, server.b).get('/v1/renders/usage')).json.data.renders.used;
        expect(usage).toBe(1);
        const listed = (await api(server, server.b).get('/v1/renders')).json.data;
        expect(listed.map((r: { status: string }) => r.status)).toEqual(['completed']);
        expect((await api(server, server.b).get('/v1/templates')).json.data).toHaveLength(1);

        proxy.setMode('pass');
        expect(await fetchStatus(`${server.url}/ready`)).toBe(200);
        expect((await render()).status).toBe(201);

        // an async render caught in the black hole does not keep the server from shutting down
        proxy.setMode('blackhole');
        const accepted = await api(server, server.b).post('/v1/renders', {
          templateId: id,
          data: { f1_1: 'async' },
          options: { async: true },
        });
        expect(accepted.status).toBe(202);
        await until(async () => {
          const job = await server.runtime.db
            .selectFrom('render_jobs')
            .select(['attempts'])
            .where('render_id', '=', accepted.json.data.renderId)
            .executeTakeFirst();
          return job && job.attempts >= 1 ? true : undefined;
        }, 'the async render to be claimed');
        await server.close();
        s = undefined;
      } finally {
        await s?.close();
        await proxy.close();
        await s3.stop();
      }
    }, 180_000); // many steps, each bounded by a deadline: a loaded machine needs more than the default 60 s
  },
);
