import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { checkNoNul } from './template-input.js';

export interface Upload {
  bytes: Buffer;
  fileName: string;
  fields: Record<string, string>;
}

// Multipart framing (boundaries, part headers, small text fields) on top of the file itself.
const MULTIPART_SLACK = 256 * 1024;

/**
 * Read a multipart upload with its `file` part, enforcing `maxBytes` while streaming: an oversize
 * Content-Length is refused before reading, and a body that grows past the limit is cut off.
 */
export async function readUpload(request: FastifyRequest, maxBytes: number, planName: string): Promise<Upload> {
  const tooLarge = () =>
    // No Connection: close here: the rest of the body is drained (bounded) by http/body-drain.ts so the
    // client can read this answer instead of a reset.
    new AppError('FILE_TOO_LARGE', `The file exceeds the ${formatMb(maxBytes)} upload limit of the ${planName} plan`, {
      limitBytes: maxBytes,
    });
  if (!request.isMultipart())
    throw new AppError('BAD_REQUEST', 'Expected Content-Type multipart/form-data with a "file" part');
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_SLACK) throw tooLarge();

  const reading = readParts(request, maxBytes, tooLarge);
  // A body arriving too slowly (http/body-timeout.ts) ends the wait with 408; the abandoned read ends
  // when the connection does.
  const { file, fields } = request.bodyTimeout ? await untilAborted(reading, request.bodyTimeout) : await reading;
  if (!file) throw new AppError('BAD_REQUEST', 'The multipart body has no "file" part');
  return { ...file, fields };
}

async function readParts(
  request: FastifyRequest,
  maxBytes: number,
  tooLarge: () => AppError,
): Promise<{ file?: { bytes: Buffer; fileName: string }; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: { bytes: Buffer; fileName: string } | undefined;
  try {
    const parts = request.parts({
      limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw new AppError('BAD_REQUEST', `Unexpected file part "${part.fieldname}"; send the PDF as "file"`);
        }
        const bytes = await readAtMost(part.file, maxBytes);
        if (!bytes) throw tooLarge();
        file = { bytes, fileName: checkNoNul(part.filename || 'template.pdf', 'file') };
      } else {
        fields[part.fieldname] = String(part.value ?? '');
      }
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new AppError(
        'BAD_REQUEST',
        'Too many parts: send one "file" and at most the "name" and "description" fields',
      );
    }
    throw new AppError('BAD_REQUEST', `The multipart body could not be read: ${(err as Error).message}`);
  }
  return { file, fields };
}

/** `work`, unless `signal` aborts first: then its reason is thrown (and `work`'s outcome ignored). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {}); // may settle after we stopped waiting
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The file part's bytes, or undefined as soon as it passes `maxBytes`. Stops at the limit: busboy's own
 * limit only truncates, then reads (and discards) the whole rest of the body before the part ends.
 */
function readAtMost(
  file: NodeJS.ReadableStream & { truncated?: boolean },
  maxBytes: number,
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | undefined, err?: unknown) => {
      file.removeListener('data', onData);
      file.removeListener('limit', onLimit);
      file.removeListener('end', onEnd);
      file.removeListener('error', onError);
      if (err) reject(err);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish(undefined);
      chunks.push(chunk);
    };
    const onLimit = () => finish(undefined);
    const onEnd = () => finish(file.truncated ? undefined : Buffer.concat(chunks, size));
    const onError = (err: unknown) => finish(undefined, err);
    file.on('data', onData);
    file.on('limit', onLimit);
    file.on('end', onEnd);
    file.on('error', onError);
  });
}

function formatMb(bytes: number): string {
  return `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
}
