import type { BlobStore } from '../../ports/blob-store.js';
import type { Tracer } from '../../ports/tracer.js';

/** The blob store with a span around each call that moves or removes a file; installed only when tracing is on. */
export function tracedBlobStore(blobs: BlobStore, tracer: Tracer): BlobStore {
  // the key names an account, a template or render and a version: ids, never contents
  const span = <T>(operation: string, key: string, work: () => Promise<T>) =>
    tracer.inSpan(`blob.${operation}`, { 'formcast.blob.key': key }, work);
  const traced: BlobStore = {
    put: (key, bytes) => span('put', key, () => blobs.put(key, bytes)),
    startPut: (key) => {
      const pending = blobs.startPut(key);
      return { finish: (bytes) => span('put', key, () => pending.finish(bytes)), abandon: () => pending.abandon() };
    },
    putFile: (key, filePath) => span('put', key, () => blobs.putFile(key, filePath)),
    get: (key) => span('get', key, () => blobs.get(key)),
    stream: (key) => span('stream', key, () => blobs.stream(key)),
    delete: (key) => span('delete', key, () => blobs.delete(key)),
    exists: (key) => span('exists', key, () => blobs.exists(key)),
    list: (prefix) => blobs.list(prefix),
    sweepUnfinished: (minAgeMs) => blobs.sweepUnfinished(minAgeMs),
    presignedUrl: (key, expiresInSeconds, fileName) => blobs.presignedUrl(key, expiresInSeconds, fileName),
  };
  if (blobs.ping) traced.ping = () => blobs.ping!();
  if (blobs.close) traced.close = () => blobs.close!();
  return traced;
}
