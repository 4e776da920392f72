// A template whose file is gone from storage (lost, or a database restored without its files) answers a
// typed RENDER_FAILED naming the template and what to do, on every path that reads the file, instead of
// a 500; nothing is charged, and uploading the file again heals it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { api, DATABASES, startServer, uploadForm } from '../helpers/server.js';

const corpus = corpusDir();

describe.skipIf(!corpus).each(DATABASES.filter((d) => d.enabled))(
  'a template file missing from storage ($label)',
  ({ name }) => {
    it('answers RENDER_FAILED naming the template, charges nothing, and heals with a new file', async () => {
      // no file cache: every request reads storage, as a second instance or a restart would
      const s = await startServer(name, { env: { TEMPLATE_FILE_CACHE_MB: '0' } });
      try {
        const bytes = readFileSync(path.join(corpus!, 'pdfs/irs-fw9-2018.pdf'));
        const up = await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'w9.pdf'));
        expect(up.status).toBe(201);
        const id = up.json.data.id as string;
        const row = await s.runtime.db
          .selectFrom('templates')
          .select('blob_key')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        await s.runtime.blobs.delete(row.blob_key);

        const answers = [
          await api(s, s.b).post('/v1/renders', { templateId: id, data: { f1_1: 'Ada' } }),
          await api(s, s.b).post(`/v1/templates/${id}/preview`, { data: { f1_1: 'Ada' } }),
          await api(s, s.b).get(`/v1/templates/${id}/file`),
        ];
        for (const res of answers) {
          expect(res.status, res.text).toBe(422);
          expect(res.json.error.code).toBe('RENDER_FAILED');
          expect(res.json.error.message).toContain(id);
          expect(res.json.error.message).toContain('missing from storage');
          expect(res.text).not.toContain(row.blob_key);
        }
        const usage = await api(s, s.b).get('/v1/renders/usage');
        expect(usage.json.data.renders.used).toBe(0);

        const put = await api(s, s.b).put(`/v1/templates/${id}/file`, uploadForm(bytes, 'w9.pdf'));
        expect(put.status, put.text).toBe(200);
        const again = await api(s, s.b).post('/v1/renders', { templateId: id, data: { f1_1: 'Ada' } });
        expect(again.status, again.text).toBe(201);
      } finally {
        await s.close();
      }
    });
  },
);
