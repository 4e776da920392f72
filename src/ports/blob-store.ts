import type { Readable } from 'node:stream';

/**
 * Where template and render files live. Keys are opaque relative paths chosen by the caller
 * (e.g. `templates/acc_x/tpl_y/v1.pdf`). Guarantees: `put` is atomic (a reader never sees a partial
 * file), `delete` of a missing key succeeds, `get` of a missing key throws BlobNotFoundError.
 */
export interface BlobStore {
  /** `bytes` may be chunks written one after the other (e.g. a render's base + update), never joined in memory by the caller. */
  put(key: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<void>;
  /**
   * `put` in two steps, for a caller that knows the key before it has the bytes: the store may prepare
   * the write meanwhile (the folder store creates its temp file, the slowest part of its write on a busy
   * disk). Nothing is visible under `key` before `finish`, which is atomic as `put`; `abandon` removes
   * what was prepared and never throws. `startPut` itself never throws: a problem (an invalid key, a
   * failed creation) is reported by `finish`. Exactly one of the two must be called.
   */
  startPut(key: string): PendingPut;
  /** Stores a local file's contents (read as a stream, never whole in memory), atomically as `put`. */
  putFile(key: string, filePath: string): Promise<void>;
  get(key: string): Promise<Uint8Array>;
  /** Stream a blob, e.g. for downloads. */
  stream(key: string): Promise<{ body: Readable; size: number }>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * Removes what unfinished writes left behind (a process killed between `startPut` and `finish`, or
   * mid-`put`) at least `minAgeMs` old by the store's own clock (a temp file's time is the file
   * system's, not the database's); answers how many. A store whose writes leave nothing behind answers 0.
   */
  sweepUnfinished(minAgeMs: number): Promise<number>;
  /** All keys under a prefix; used by the orphan sweeper. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * A URL the client can GET directly for `expiresInSeconds`, when the store can sign natively (S3).
   * Null means the service signs and serves the download itself.
   */
  presignedUrl(key: string, expiresInSeconds: number, fileName: string): Promise<string | null>;
  /** Resolves when the store answers (for /ready); throws BlobStoreUnavailableError when it does not. */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

/** A write started by `BlobStore.startPut`. */
export interface PendingPut {
  finish(bytes: Uint8Array | readonly Uint8Array[]): Promise<void>;
  abandon(): Promise<void>;
}

/**
 * The store did not answer in time or could not be reached (refused, reset, a 5xx, a deadline passed):
 * a passing fault of ours, answered 503 with Retry-After, never the caller's failure.
 */
export class BlobStoreUnavailableError extends Error {
  constructor(operation: string, options?: { cause?: unknown }) {
    super(`the file store is unavailable (${operation})`, options);
    this.name = 'BlobStoreUnavailableError';
  }
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}
