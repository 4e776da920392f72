import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import type { ErrorCode } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's work is never paid by the quota (a preview): every answer counts as unpaid work. */
    unpaidWork?: boolean;
  }
}

/**
 * Answers that refuse work the service did or began (the engine's, a remembered refusal, a file read past
 * the plan's size): unpaid, so they draw from the account's budget (adapters/admission/unpaid-work.ts).
 * VALIDATION_ERROR is not among them: it costs no worker, and an honest integration with a bad row of data
 * may send many.
 */
const UNPAID_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  'INVALID_PDF',
  'RENDER_FAILED',
  'FILE_TOO_LARGE',
  'PAYLOAD_TOO_LARGE',
]);

/**
 * Unpaid work is charged by size: one unit per request of up to 64 KiB of JSON, one more per 64 KiB started
 * beyond. Its cost in the main process (reading, decoding, parsing, collecting and copying the value to a
 * worker) grows with the body, not with the request count: a 200 KB preview took ~10 ms of the loop where a
 * small one took ~4 (performance.md "Session 14"). A JSON body refused for its size was read up to the
 * limit: the cap. The cap keeps one honest large preview from holding the account for long: 16 units are
 * ~3 s of the default refill.
 */
export const UNPAID_UNIT_BYTES = 64 * 1024;
export const MAX_UNPAID_UNITS_PER_REQUEST = 16;

function unpaidWork(request: FastifyRequest): number {
  const unpaid =
    request.routeOptions.config.unpaidWork || (request.errorCode && UNPAID_REFUSALS.has(request.errorCode));
  if (!unpaid) return 0;
  const bytes =
    request.rawBody?.byteLength ??
    (request.errorCode === 'PAYLOAD_TOO_LARGE' && request.headers['content-type']?.startsWith('application/json')
      ? Number.POSITIVE_INFINITY
      : 0);
  return Math.min(MAX_UNPAID_UNITS_PER_REQUEST, Math.max(1, Math.ceil(bytes / UNPAID_UNIT_BYTES)));
}

/** The client closed its connection while its request waited for its turn: nobody is left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection while waiting');
    this.name = 'ClientGoneError';
  }
}

/**
 * After authentication and the rate limit, before the body is read: the request waits for its account's
 * turn (ports/request-admission.ts: its budget of unpaid work, its share of the main process). Its turn
 * ends when the answer is out or the client has gone, saying whether it was unpaid work; a client that
 * leaves while waiting gives its place up. Waiting too long is 503 SERVICE_UNAVAILABLE for the share
 * (contract: "the service is saturated") and 429 RATE_LIMITED for the budget (the account's own rate).
 */
export function admission(deps: Pick<Deps, 'admission'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const gone = new AbortController();
    const onClose = () => gone.abort(new ClientGoneError());
    reply.raw.once('close', onClose);
    let end: (unpaidWork?: number) => void;
    try {
      end = await deps.admission.admit(request.auth.accountId, gone.signal);
    } catch (err) {
      // AdmissionTimeoutError and UnpaidWorkLimitError are answered by the error handler (503 / 429)
      reply.raw.off('close', onClose);
      throw err;
    }
    reply.raw.off('close', onClose);
    // 'close' comes after the answer is sent, or when the connection ends first
    const release = () => end(unpaidWork(request));
    if (reply.raw.destroyed) release();
    else reply.raw.once('close', release);
  };
}
