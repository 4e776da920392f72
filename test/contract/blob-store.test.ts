import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import S3rver from '@20minutes/s3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobNotFoundError, type BlobStore } from '../../src/ports/blob-store.js';
import { FsBlobStore } from '../../src/adapters/blob/fs-blob-store.js';
import { S3BlobStore, type S3BlobStoreOptions } from '../../src/adapters/blob/s3-blob-store.js';
import { fixS3rverSigV4 } from './s3rver-fixes.js';
import { fetchStatus } from '../helpers/fetch-status.js';

/** One adapter under test: how to start it (and whatever it needs), and how to tear it all down. */
interface StoreCase {
  name: string;
  nativeUrls: boolean;
  start(): Promise<{ store: BlobStore; stop(): Promise<void> }>;
}

const STORES: StoreCase[] = [
  {
    name: 'FsBlobStore',
    nativeUrls: false,
    async start() {
      const dir = mkdtempSync(path.join(tmpdir(), 'formcast-blob-'));
      const store = new FsBlobStore(dir);
      return { store, stop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  s3Case('S3BlobStore', {}),
  // The option for S3-compatible servers that predate flexible checksums must keep every guarantee too.
  s3Case('S3BlobStore (checksums when-required)', { checksums: 'when-required' }),
];

/** A real S3 protocol server (s3rver, in-process on 127.0.0.1, own temp dir), never a mock of the SDK. */
function s3Case(name: string, options: Partial<S3BlobStoreOptions>): StoreCase {
  return {
    name,
    nativeUrls: true,
    async start() {
      fixS3rverSigV4();
      const dir = mkdtempSync(path.join(tmpdir(), 'formcast-s3-'));
      const bucket = 'formcast-test';
      const server = new S3rver({
        address: '127.0.0.1',
        port: 0,
        silent: true,
        directory: dir,
        configureBuckets: [{ name: bucket }],
      });
      const { port } = await server.run();
      const store = new S3BlobStore({
        bucket,
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        keyPrefix: `run-${randomBytes(4).toString('hex')}`,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, // s3rver's built-in account
        ...options,
      });
      return {
        store,
        async stop() {
          await store.close?.();
          await server.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

const bytes = (s: string) => new Uint8Array(Buffer.from(s));
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const k of it) out.push(k);
  return out.sort();
}

for (const c of STORES) {
  describe(`BlobStore contract: ${c.name}`, () => {
    let store: BlobStore;
    let stop: () => Promise<void>;

    beforeAll(async () => {
      ({ store, stop } = await c.start());
    });
    afterAll(async () => {
      await stop?.();
    });

    it('returns the bytes that were put', async () => {
      const data = new Uint8Array(randomBytes(200_000));
      await store.put('templates/acc_a/tpl_1/v1.pdf', data);
      expect(Buffer.compare(Buffer.from(await store.get('templates/acc_a/tpl_1/v1.pdf')), Buffer.from(data))).toBe(0);
    });

    it('writes chunks one after the other as one blob', async () => {
      const a = new Uint8Array(randomBytes(150_000));
      const b = new Uint8Array(randomBytes(3_000));
      await store.put('chunks/acc_a/rnd_1.pdf', [a, b]);
      expect(Buffer.compare(Buffer.from(await store.get('chunks/acc_a/rnd_1.pdf')), Buffer.concat([a, b]))).toBe(0);
      const { body, size } = await store.stream('chunks/acc_a/rnd_1.pdf');
      body.destroy();
      expect(size).toBe(a.length + b.length);
    });

    it('stores a local file, leaving the file in place, and replaces a key the same way', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'formcast-putfile-'));
      try {
        const data = randomBytes(1_500_000); // more than one read chunk of a file stream
        const file = path.join(dir, 'combined.pdf');
        writeFileSync(file, data);
        await store.putFile('batches/acc_a/bat_1.pdf', file);
        expect(Buffer.compare(Buffer.from(await store.get('batches/acc_a/bat_1.pdf')), data)).toBe(0);
        writeFileSync(file, 'second');
        await store.putFile('batches/acc_a/bat_1.pdf', file);
        expect(text(await store.get('batches/acc_a/bat_1.pdf'))).toBe('second');
        expect(await collect(store.list('batches/acc_a'))).toEqual(['batches/acc_a/bat_1.pdf']);
        await expect(store.putFile('batches/acc_a/bat_2.pdf', path.join(dir, 'absent.pdf'))).rejects.toThrow();
        expect(await store.exists('batches/acc_a/bat_2.pdf')).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('shows nothing under a started put until it is finished, then its chunks as one blob', async () => {
      const pending = store.startPut('started/acc_a/rnd_1.pdf');
      const a = new Uint8Array(randomBytes(40_000));
      const b = new Uint8Array(randomBytes(2_000));
      expect(await store.exists('started/acc_a/rnd_1.pdf')).toBe(false);
      expect(await collect(store.list('started'))).toEqual([]);
      await pending.finish([a, b]);
      expect(Buffer.compare(Buffer.from(await store.get('started/acc_a/rnd_1.pdf')), Buffer.concat([a, b]))).toBe(0);
    });

    it('leaves nothing under an abandoned put, in a folder that did not exist', async () => {
      const pending = store.startPut('abandoned/acc_new/rnd_1.pdf');
      await pending.abandon();
      expect(await store.exists('abandoned/acc_new/rnd_1.pdf')).toBe(false);
      expect(await collect(store.list('abandoned'))).toEqual([]);
    });

    it('reports an invalid key from finish, not from startPut, and abandons it quietly', async () => {
      const pending = store.startPut('renders/../escape.pdf');
      await expect(pending.finish(bytes('x'))).rejects.toThrow(/invalid blob key/);
      await expect(store.startPut('renders/../escape.pdf').abandon()).resolves.toBeUndefined();
    });

    it('sweeps no finished blob and no write in flight as unfinished', async () => {
      await store.put('sweep/acc_a/done.pdf', bytes('kept'));
      const pending = store.startPut('sweep/acc_a/flight.pdf');
      expect(await store.sweepUnfinished(60_000)).toBe(0);
      await pending.finish(bytes('landed'));
      expect(await collect(store.list('sweep'))).toEqual(['sweep/acc_a/done.pdf', 'sweep/acc_a/flight.pdf']);
    });

    it('replaces the content when a key is put again', async () => {
      await store.put('over/k.pdf', bytes('first version'));
      await store.put('over/k.pdf', bytes('second'));
      expect(text(await store.get('over/k.pdf'))).toBe('second');
    });

    it('throws BlobNotFoundError for a missing key', async () => {
      await expect(store.get('missing/nothing.pdf')).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.stream('missing/nothing.pdf')).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('deletes a key, and deleting a missing key succeeds', async () => {
      await store.put('del/k.pdf', bytes('x'));
      await store.delete('del/k.pdf');
      await expect(store.get('del/k.pdf')).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.delete('del/k.pdf')).resolves.toBeUndefined();
      await expect(store.delete('del/never-existed.pdf')).resolves.toBeUndefined();
    });

    it('says whether a key exists', async () => {
      await store.put('ex/here.pdf', bytes('x'));
      expect(await store.exists('ex/here.pdf')).toBe(true);
      expect(await store.exists('ex/absent.pdf')).toBe(false);
    });

    it('lists the keys under a prefix, and only those', async () => {
      await store.put('list/acc_a/r1.pdf', bytes('1'));
      await store.put('list/acc_a/deep/r2.pdf', bytes('2'));
      await store.put('list/acc_ab/r3.pdf', bytes('3'));
      expect(await collect(store.list('list/acc_a'))).toEqual(['list/acc_a/deep/r2.pdf', 'list/acc_a/r1.pdf']);
      expect(await collect(store.list('list/acc_a/'))).toEqual(['list/acc_a/deep/r2.pdf', 'list/acc_a/r1.pdf']);
      expect(await collect(store.list('list'))).toEqual([
        'list/acc_a/deep/r2.pdf',
        'list/acc_a/r1.pdf',
        'list/acc_ab/r3.pdf',
      ]);
      expect(await collect(store.list('list/none'))).toEqual([]);
    });

    it('streams a blob with its size', async () => {
      const data = new Uint8Array(randomBytes(70_000));
      await store.put('stream/k.pdf', data);
      const { body, size } = await store.stream('stream/k.pdf');
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(size).toBe(data.byteLength);
      expect(Buffer.compare(Buffer.concat(chunks), Buffer.from(data))).toBe(0);
    });

    if (!c.nativeUrls) {
      it('answers null for presignedUrl, so the service signs its own links', async () => {
        expect(await store.presignedUrl('stream/k.pdf', 900, 'x.pdf')).toBeNull();
      });
      return;
    }

    it('gives a pre-signed URL that a plain fetch downloads as an attachment', async () => {
      const data = bytes('%PDF-1.7 presigned');
      await store.put('renders/acc_a/rnd_1.pdf', data);
      const url = await store.presignedUrl('renders/acc_a/rnd_1.pdf', 900, 'Fiche été (2024)-rnd_1.pdf');
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      const res = await fetch(url!);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('%PDF-1.7 presigned');
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="Fiche _t_ (2024)-rnd_1.pdf"; filename*=UTF-8''Fiche%20%C3%A9t%C3%A9%20%282024%29-rnd_1.pdf`,
      );
    });

    it('refuses a pre-signed URL whose key or signature was tampered with', async () => {
      await store.put('renders/acc_a/rnd_2.pdf', bytes('secret'));
      await store.put('renders/acc_b/rnd_3.pdf', bytes('other tenant'));
      const url = new URL((await store.presignedUrl('renders/acc_a/rnd_2.pdf', 900, 'a.pdf'))!);
      const otherKey = new URL(url);
      otherKey.pathname = otherKey.pathname.replace('acc_a/rnd_2', 'acc_b/rnd_3');
      expect(await fetchStatus(otherKey)).toBe(403);
      const badSig = new URL(url);
      const sig = badSig.searchParams.get('X-Amz-Signature')!;
      badSig.searchParams.set('X-Amz-Signature', (sig[0] === '0' ? '1' : '0') + sig.slice(1));
      expect(await fetchStatus(badSig)).toBe(403);
      const longer = new URL(url);
      longer.searchParams.set('X-Amz-Expires', '604800');
      expect(await fetchStatus(longer)).toBe(403);
    });

    it('refuses a pre-signed URL once its lifetime is over', async () => {
      await store.put('renders/acc_a/rnd_4.pdf', bytes('short-lived'));
      // 3 s: the first fetch must land inside the lifetime even on a busy machine
      const url = (await store.presignedUrl('renders/acc_a/rnd_4.pdf', 3, 'a.pdf'))!;
      expect(await fetchStatus(url)).toBe(200);
      await new Promise((r) => setTimeout(r, 4100)); // X-Amz-Date has one-second precision
      expect(await fetchStatus(url)).toBe(403);
    });
  });
}

describe('FsBlobStore: temp files', () => {
  it('leaves no temp file behind an abandoned put or a finished one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-blob-tmp-'));
    try {
      const store = new FsBlobStore(dir);
      await store.startPut('renders/acc_a/rnd_1.pdf').abandon();
      await store.startPut('renders/acc_a/rnd_2.pdf').finish(bytes('done'));
      expect(readdirSync(path.join(dir, 'renders/acc_a'))).toEqual(['rnd_2.pdf']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes the temp file a write cut by a crash left, once it is older than the age asked', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-blob-tmp-'));
    try {
      const store = new FsBlobStore(dir);
      await store.put('renders/acc_a/rnd_1.pdf', bytes('done'));
      // what a process killed between startPut and finish leaves: an empty temp file beside the blobs
      const left = path.join(dir, 'renders/acc_a/rnd_2.pdf.0123456789ab.tmp');
      writeFileSync(left, '');
      expect(await store.sweepUnfinished(60_000)).toBe(0); // too young: it could be a write in flight
      const tenMinutesAgo = new Date(Date.now() - 600_000);
      utimesSync(left, tenMinutesAgo, tenMinutesAgo);
      expect(await store.sweepUnfinished(60_000)).toBe(1);
      expect(readdirSync(path.join(dir, 'renders/acc_a'))).toEqual(['rnd_1.pdf']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a put whose folder cannot be made from finish, and abandoning it does not throw', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-blob-tmp-'));
    try {
      writeFileSync(path.join(dir, 'renders'), 'a file where the folder should be');
      const store = new FsBlobStore(dir);
      await expect(store.startPut('renders/acc_a/rnd_1.pdf').finish(bytes('x'))).rejects.toThrow();
      await expect(store.startPut('renders/acc_a/rnd_2.pdf').abandon()).resolves.toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
