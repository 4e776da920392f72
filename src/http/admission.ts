import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { AdmissionTimeoutError } from '../ports/request-admission.js';

/**
 * After authentication and the rate limit, before the body is read: the request waits for its account's
 * share of the main process (ports/request-admission.ts). Its turn ends when the answer is out or the
 * client has gone; a client that leaves while waiting gives its place up. Waiting too long is 503
 * SERVICE_UNAVAILABLE with Retry-After (contract: "the service is saturated").
 */
export function admission(deps: Pick<Deps, 'admission'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const gone = new AbortController();
    const onClose = () => gone.abort(new Error('client closed the connection while waiting'));
    reply.raw.once('close', onClose);
    let release: () => void;
    try {
      release = await deps.admission.admit(request.auth.accountId, gone.signal);
    } catch (err) {
      reply.raw.off('close', onClose);
      if (err instanceof AdmissionTimeoutError)
        throw new AppError('SERVICE_UNAVAILABLE', 'The server is saturated; retry shortly', undefined, {
          'Retry-After': String(err.retryAfterSeconds),
        });
      throw err;
    }
    reply.raw.off('close', onClose);
    // 'close' comes after the answer is sent, or when the connection ends first
    if (reply.raw.destroyed) release();
    else reply.raw.once('close', release);
  };
}
