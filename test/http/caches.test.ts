// The server's caches are built by the composition root with sizes from Config: with the template file
// cache on (the default), renders of one template read its file from storage once; with
// TEMPLATE_FILE_CACHE_MB=0, every render reads it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/adapters/blob/fs-blob-store.js';
import { corpusDir } from '../helpers/corpus.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const corpus = corpusDir();

/** The real folder store, counting reads. */
class CountingBlobStore extends FsBlobStore {
  reads = 0;
  override async get(key: string): Promise<Uint8Array> {
    this.reads++;
    return super.get(key);
  }
}

async function readsForThreeRenders(env: Record<string, string>): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'formcast-blobs-'));
  const blobs = new CountingBlobStore(dir);
  let s: TestServer | undefined;
  try {
    s = await startServer('sqlite', { env, overrides: { blobs } });
    const up = await api(s, s.b).post(
      '/v1/templates',
      uploadForm(readFileSync(path.join(corpus!, 'pdfs/pdfjs-required-fields.pdf')), 'r.pdf'),
    );
    expect(up.status).toBe(201);
    const before = blobs.reads;
    for (let i = 0; i < 3; i++) {
      const res = await api(s, s.b).post('/v1/renders', { templateId: up.json.data.id, data: {} });
      expect(res.status, res.text).toBe(201);
    }
    return blobs.reads - before;
  } finally {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!corpus)('server caches sized from Config', () => {
  it('reads a template file from storage once for several renders by default', async () => {
    expect(await readsForThreeRenders({})).toBe(1);
  });

  it('reads it for every render with TEMPLATE_FILE_CACHE_MB=0', async () => {
    expect(await readsForThreeRenders({ TEMPLATE_FILE_CACHE_MB: '0' })).toBe(3);
  });
});
