import type { Readable } from 'node:stream';

/**
 * Where template and render files live. Keys are opaque relative paths chosen by the caller
 * (e.g. `templates/acc_x/tpl_y/v1.pdf`). Guarantees: `put` is atomic (a reader never sees a partial
 * file), `delete` of a missing key succeeds, `get` of a missing key throws BlobNotFoundError.
 */
export interface BlobStore {
  /** `bytes` may be chunks written one after the other (e.g. a render's base + update), never joined in memory by the caller. */
  put(key: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<void>;
  get(key: string): Promise<Uint8Array>;
  /** Stream a blob, e.g. for downloads. */
  stream(key: string): Promise<{ body: Readable; size: number }>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** All keys under a prefix; used by the orphan sweeper. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * A URL the client can GET directly for `expiresInSeconds`, when the store can sign natively (S3).
   * Null means the service signs and serves the download itself.
   */
  presignedUrl(key: string, expiresInSeconds: number, fileName: string): Promise<string | null>;
  close?(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}
