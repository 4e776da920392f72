import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  BlobNotFoundError,
  type BlobStore,
  BlobStoreUnavailableError,
  type PendingPut,
} from '../../ports/blob-store.js';
import { attachmentDisposition } from '../../lib/content-disposition.js';
import { NETWORK_ERROR_CODES } from '../../lib/network-errors.js';

/** The subset of the SDK client we call (design rule 2). */
export type S3Like = Pick<S3Client, 'send' | 'destroy'>;

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** S3-compatible servers (MinIO, R2, Ceph...); omitted for AWS itself. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `formcast/`, so one bucket can host several deployments. */
  keyPrefix?: string;
  /**
   * Recent SDKs send CRC32 checksums on every upload and validate them on download. Servers that
   * predate flexible checksums need 'when-required'. AWS default ('when-supported') otherwise.
   */
  checksums?: 'when-supported' | 'when-required';
  /** Only for tests and special setups; normally the SDK default chain (AWS_* variables, profiles, IAM role). */
  credentials?: S3ClientConfig['credentials'];
  /**
   * Deadline of one call, the SDK's own retries included, ms (default 10 s); a body adds a second per
   * MiB. Without it a store that accepts connections and never answers holds a request for ever.
   */
  timeoutMs?: number;
}

/** Body bytes a call may move per second of its deadline beyond `timeoutMs`. */
const BYTES_PER_SECOND = 1024 * 1024;

/**
 * Blobs as objects in one bucket. A PutObject is atomic (readers see the old or the new object, never a
 * part), DeleteObject of a missing key succeeds, and downloads are served by S3 via pre-signed URLs.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Like;
  private readonly presign: (key: string, seconds: number, fileName: string) => Promise<string>;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(options: S3BlobStoreOptions) {
    const checksum = options.checksums === 'when-required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
    const client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle ?? false,
      credentials: options.credentials,
      requestChecksumCalculation: checksum,
      responseChecksumValidation: checksum,
    });
    this.client = client;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.bucket = options.bucket;
    this.prefix = options.keyPrefix ? options.keyPrefix.replace(/\/*$/, '/') : '';
    // The presigner needs the whole client (its config and middleware), so it is kept apart from S3Like.
    this.presign = (key, seconds, fileName) =>
      getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          ResponseContentDisposition: attachmentDisposition(fileName),
          ResponseContentType: 'application/pdf',
        }),
        { expiresIn: seconds },
      );
  }

  private objectKey(key: string): string {
    // Same rule as the folder adapter: keys are relative paths without empty, `.` or `..` segments.
    if (key === '' || key.split('/').some((p) => p === '..' || p === '' || p === '.')) {
      throw new Error(`invalid blob key: ${key}`);
    }
    return this.prefix + key;
  }

  async put(key: string, chunks: Uint8Array | readonly Uint8Array[]): Promise<void> {
    // One body with a known length (the network dominates the cost of joining the chunks here).
    const bytes = chunks instanceof Uint8Array ? chunks : Buffer.concat(chunks);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      Body: bytes,
      ContentLength: bytes.byteLength,
    });
    await this.call('put', (abortSignal) => this.client.send(command, { abortSignal }), bytes.byteLength);
  }

  /** Nothing to prepare: the object is one PutObject when the bytes are there. */
  startPut(key: string): PendingPut {
    return { finish: (bytes) => this.put(key, bytes), abandon: async () => {} };
  }

  async putFile(key: string, filePath: string): Promise<void> {
    // One PutObject with a streamed body of known length (atomic; up to S3's 5 GB per PUT). A stream
    // cannot be replayed, so a failed call is retried by our caller, not the SDK.
    const { size } = await stat(filePath);
    // The checksum is computed here, in a first pass over the file: the SDK would otherwise send the
    // stream aws-chunked with a trailing checksum, which some S3-compatible servers refuse.
    const sha256 = createHash('sha256');
    for await (const chunk of createReadStream(filePath)) sha256.update(chunk as Buffer);
    const body = createReadStream(filePath);
    try {
      const command = new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.objectKey(key),
        Body: body,
        ContentLength: size,
        ChecksumSHA256: sha256.digest('base64'),
      });
      await this.call('put', (abortSignal) => this.client.send(command, { abortSignal }), size);
    } finally {
      body.destroy();
    }
  }

  async get(key: string): Promise<Uint8Array> {
    const { body, size } = await this.getObject(key);
    // The body has a deadline of its own: a store that stops sending mid-file must not hold us either.
    const timer = setTimeout(
      () => body.destroy(new BlobStoreUnavailableError('get: the body did not arrive in time')),
      Math.ceil(this.timeoutMs + (size / BYTES_PER_SECOND) * 1000),
    );
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    } catch (err) {
      if (err instanceof BlobStoreUnavailableError) throw err;
      throw new BlobStoreUnavailableError('get', { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  async stream(key: string): Promise<{ body: Readable; size: number }> {
    return this.getObject(key);
  }

  private async getObject(key: string): Promise<{ body: Readable; size: number }> {
    try {
      const command = new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
      const out = await this.call('get', (abortSignal) => this.client.send(command, { abortSignal }));
      // In Node the SDK's body is an http.IncomingMessage; anything else means a browser build slipped in.
      if (!(out.Body instanceof Readable)) throw new Error('S3 GetObject body is not a Node stream');
      return { body: out.Body, size: out.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      const command = new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
      await this.call('delete', (abortSignal) => this.client.send(command, { abortSignal }));
    } catch (err) {
      // S3 answers 204 for a missing key; some compatible servers answer 404. Both mean "gone".
      if (!isNotFound(err)) throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      const command = new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
      await this.call('exists', (abortSignal) => this.client.send(command, { abortSignal }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Keys under a folder-like prefix, as in the folder adapter: `list('renders/acc_a')` does not match
   * `renders/acc_ab/...`, so a sweep of one account never touches another whose id shares a prefix.
   */
  async *list(prefix: string): AsyncIterable<string> {
    const folder = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    let token: string | undefined;
    do {
      const command = new ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: this.prefix + folder,
        ContinuationToken: token,
      });
      const page = await this.call('list', (abortSignal) => this.client.send(command, { abortSignal }));
      for (const obj of page.Contents ?? []) if (obj.Key) yield obj.Key.slice(this.prefix.length);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** A PutObject is whole or absent: nothing unfinished to remove. */
  async sweepUnfinished(): Promise<number> {
    return 0;
  }

  async presignedUrl(key: string, expiresInSeconds: number, fileName: string): Promise<string | null> {
    return this.presign(key, expiresInSeconds, fileName);
  }

  async ping(): Promise<void> {
    const command = new HeadBucketCommand({ Bucket: this.bucket });
    await this.call('ping', (abortSignal) => this.client.send(command, { abortSignal }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** One SDK call under the deadline; a fault of the store becomes BlobStoreUnavailableError. */
  private async call<T>(operation: string, send: (signal: AbortSignal) => Promise<T>, bodyBytes = 0): Promise<T> {
    const signal = AbortSignal.timeout(Math.ceil(this.timeoutMs + (bodyBytes / BYTES_PER_SECOND) * 1000));
    try {
      return await send(signal);
    } catch (err) {
      if (signal.aborted || isUnreachable(err)) throw new BlobStoreUnavailableError(operation, { cause: err });
      throw err;
    }
  }
}

const SERVER_FAULTS = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'TimeoutError']);

/** A fault of the store or the way to it (as opposed to a refusal such as access denied or a missing bucket). */
function isUnreachable(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (!e || typeof e !== 'object') return false;
  if ((e.code && NETWORK_ERROR_CODES.has(e.code)) || (e.name && SERVER_FAULTS.has(e.name))) return true;
  if (e.name === 'AbortError' || /socket hang up/i.test(e.message ?? '')) return true;
  return (e.$metadata?.httpStatusCode ?? 0) >= 500;
}

function isNotFound(err: unknown): boolean {
  // HEAD answers a bare 404 ("NotFound"); a missing bucket is a configuration error, never a missing blob.
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
