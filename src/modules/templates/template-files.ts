import type { Deps } from '../../deps.js';
import { Lru } from '../../lib/lru.js';

// Template PDFs by blob key. A key names one immutable file version (a replaced file gets a new key), so
// cached bytes never go stale; the cache saves a blob-store round trip (an S3 GET) on every render.
const files = new Lru<string, Uint8Array>(512, 256 * 1024 * 1024, (b) => b.byteLength);

export async function loadTemplateBytes(deps: Pick<Deps, 'blobs'>, blobKey: string): Promise<Uint8Array> {
  let bytes = files.get(blobKey);
  if (!bytes) {
    bytes = await deps.blobs.get(blobKey);
    files.set(blobKey, bytes);
  }
  return bytes;
}
