import { createReadStream } from 'node:fs';
import {
  access,
  constants,
  copyFile,
  type FileHandle,
  mkdir,
  open,
  readFile,
  rename,
  rm,
  stat,
  readdir,
} from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  BlobNotFoundError,
  type BlobStore,
  BlobStoreUnavailableError,
  type PendingPut,
} from '../../ports/blob-store.js';

/** Blobs as files under one root folder. Writes go to a temp file then rename, so they are atomic. */
export class FsBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private resolve(key: string): string {
    // Keys are produced by our own code, but never let one escape the root.
    if (!/^[A-Za-z0-9_\-./]+$/.test(key) || key.split('/').some((p) => p === '..' || p === '' || p === '.')) {
      throw new Error(`invalid blob key: ${key}`);
    }
    return path.join(this.root, key);
  }

  put(key: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<void> {
    return this.startPut(key).finish(bytes);
  }

  startPut(key: string): PendingPut {
    let tmp: string | undefined;
    // Creating the file is the slow part on a busy ext4 (0.3-1.5 ms of inode search while many files
    // were deleted lately, docs/performance.md): it starts now, the bytes come later. An invalid key
    // rejects this like a failed open: finish() reports it, abandon() ignores it.
    const opened = (async () => {
      const file = this.resolve(key);
      tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      return { file, tmp, handle: await openTemp(file, tmp) };
    })();
    opened.catch(() => {}); // never unhandled, whichever of finish and abandon comes
    // list() skips .tmp files, so no sweeper would find one left behind
    const removeTemp = () => (tmp === undefined ? Promise.resolve() : rm(tmp, { force: true }));
    return {
      async finish(bytes) {
        try {
          const { file, tmp, handle } = await opened;
          try {
            // writev: the chunks go to the file as they are, no joined copy (libuv retries short writes)
            const chunks = bytes instanceof Uint8Array ? [bytes] : [...bytes];
            const { bytesWritten } = await handle.writev(chunks);
            const total = chunks.reduce((n, c) => n + c.byteLength, 0);
            if (bytesWritten !== total) throw new Error(`short write to ${tmp}: ${bytesWritten} of ${total} bytes`);
          } catch (err) {
            await handle.close();
            throw err;
          }
          // The bytes are in: the name moves while the descriptor closes, on two threads of the pool at
          // once rather than one after the other.
          await Promise.all([rename(tmp, file), handle.close()]);
        } catch (err) {
          await removeTemp();
          throw err;
        }
      },
      async abandon() {
        // never throws: the caller is already handling the failure that made it give up
        await opened.then(({ handle }) => handle.close()).catch(() => {});
        await removeTemp().catch(() => {});
      },
    };
  }

  async putFile(key: string, filePath: string): Promise<void> {
    const file = this.resolve(key);
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    // copyFile copies in the kernel (or clones), never through our memory; then rename, as put.
    await mkdir(path.dirname(file), { recursive: true });
    try {
      await copyFile(filePath, tmp);
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return await readFile(this.resolve(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async stream(key: string) {
    const file = this.resolve(key);
    try {
      const { size } = await stat(file);
      return { body: createReadStream(file), size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.resolve(key), { force: true });
  }

  async ping(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
    } catch (err) {
      throw new BlobStoreUnavailableError('ping', { cause: err });
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.resolve(key));
      return true;
    } catch {
      return false;
    }
  }

  async sweepUnfinished(minAgeMs: number): Promise<number> {
    const olderThanMs = Date.now() - minAgeMs;
    let removed = 0;
    for (const full of await filesUnder(this.root)) {
      if (!full.endsWith('.tmp')) continue;
      // a write still in flight is younger than the sweeper's stale age (ten render time budgets)
      const modified = await stat(full).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (modified === undefined || modified >= olderThanMs) continue;
      await rm(full, { force: true });
      removed++;
    }
    return removed;
  }

  async *list(prefix: string): AsyncIterable<string> {
    for (const full of await filesUnder(path.join(this.root, prefix))) {
      if (full.endsWith('.tmp')) continue;
      yield path.relative(this.root, full).split(path.sep).join('/');
    }
  }

  async presignedUrl(): Promise<string | null> {
    return null;
  }
}

/** Opens `tmp` for writing; the folder usually exists (one per account): made only when the open says it is missing. */
function openTemp(file: string, tmp: string): Promise<FileHandle> {
  return open(tmp, 'w').catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    await mkdir(path.dirname(file), { recursive: true });
    return open(tmp, 'w');
  });
}

/** Every file under `base`, as full paths (none when the folder does not exist). */
async function filesUnder(base: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(base, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}
