import type { Deps } from '../../deps.js';

/** A template's PDF by blob key, from the server's cache when it holds it (see Caches in deps.ts). */
export async function loadTemplateBytes(deps: Pick<Deps, 'blobs' | 'caches'>, blobKey: string): Promise<Uint8Array> {
  const files = deps.caches.templateFiles;
  let bytes = files.get(blobKey);
  if (!bytes) {
    bytes = await deps.blobs.get(blobKey);
    files.set(blobKey, bytes);
  }
  return bytes;
}
