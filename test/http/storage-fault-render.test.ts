// A synchronous render whose file cannot be stored (a real fault: the account's folder replaced by a
// file; a stopped S3 server) answers 503 SERVICE_UNAVAILABLE with Retry-After, leaves no `failed`
// render in the customer's history and charges nothing: the fault is ours, and retrying works.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { startS3 } from '../helpers/s3.js';
import { api, DATABASES, startServer, type TestServer, uploadForm } from '../helpers/server.js';

const corpus = corpusDir();

async function upload(s: TestServer): Promise<string> {
  const bytes = readFileSync(path.join(corpus!, 'pdfs/irs-fw9-2018.pdf'));
  const up = await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'w9.pdf'));
  expect(up.status, up.text).toBe(201);
  return up.json.data.id;
}

async function expectUnavailableAndNothingRecorded(s: TestServer, templateId: string, usedBefore: number) {
  const res = await api(s, s.b).post('/v1/renders', { templateId, data: { f1_1: 'Ada' } });
  expect(res.status, res.text).toBe(503);
  expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  const list = await api(s, s.b).get('/v1/renders?limit=100');
  expect(list.json.data.filter((r: { status: string }) => r.status !== 'completed')).toEqual([]);
  expect((await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used).toBe(usedBefore);
}

describe.skipIf(!corpus)('a render whose file cannot be stored', () => {
  it('SQLite + folder: answers 503, records nothing, and works once the folder is back', async () => {
    const s = await startServer('sqlite');
    try {
      const id = await upload(s);
      const first = await api(s, s.b).post('/v1/renders', { templateId: id, data: { f1_1: 'Ada' } });
      expect(first.status).toBe(201);
      const folder = path.join(s.config.dataDir, 'files', 'renders', s.b.accountId);
      renameSync(folder, `${folder}.away`);
      writeFileSync(folder, 'not a folder');
      await expectUnavailableAndNothingRecorded(s, id, 1);
      rmSync(folder);
      renameSync(`${folder}.away`, folder);
      mkdirSync(folder, { recursive: true });
      const again = await api(s, s.b).post('/v1/renders', { templateId: id, data: { f1_1: 'Ada' } });
      expect(again.status, again.text).toBe(201);
    } finally {
      await s.close();
    }
  });

  it.skipIf(!DATABASES[1].enabled)('PostgreSQL + S3: answers 503 while the S3 server is stopped', async () => {
    const s3 = await startS3();
    const s = await startServer('postgres', { env: s3.env });
    let stopped = false;
    try {
      const id = await upload(s);
      await s3.stop();
      stopped = true;
      await expectUnavailableAndNothingRecorded(s, id, 0);
    } finally {
      await s.close();
      if (!stopped) await s3.stop();
    }
  });
});
