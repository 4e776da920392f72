import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

// Request bodies get a time limit. Two rules, so that slow honest networks pass and a client trickling
// bytes (1 byte/s keeps a socket, a parser and its buffers alive forever) does not:
// - a minimum throughput: at least `bodyMinBytesPerSecond` on average over every `bodyRateWindowMs`
//   window (a stall or a trickle is cut within one or two windows);
// - a total deadline, `bodyTimeoutMs`, generous enough for the largest plan upload on a slow link.
// Progress is read from the socket's byte count, so watching changes nothing in how the body flows.
// The consumer (Fastify's JSON parser, or the upload reader) learns of the timeout through
// `request.bodyTimeout` and the client gets 408 REQUEST_TIMEOUT; http/body-drain.ts then closes the
// connection within its bounds.

export interface BodyTimeoutLimits {
  bodyTimeoutMs: number;
  bodyMinBytesPerSecond: number;
  bodyRateWindowMs: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Aborted (reason: an AppError REQUEST_TIMEOUT) when the body arrives too slowly; unset without a body. */
    bodyTimeout?: AbortSignal;
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Watch `req`'s body; the returned signal aborts when it is too slow. Stops once the body is in. */
function watchBody(
  req: IncomingMessage,
  limits: BodyTimeoutLimits,
  onSettled: (stop: () => void) => void,
): AbortSignal {
  const controller = new AbortController();
  const socket = req.socket;
  let last = socket.bytesRead;
  const minPerWindow = (limits.bodyMinBytesPerSecond * limits.bodyRateWindowMs) / 1000;
  const trip = (why: string) => {
    stop();
    if (req.complete || socket.destroyed) return;
    controller.abort(
      new AppError(
        'REQUEST_TIMEOUT',
        `The request body arrived too slowly (${why}); send it again on a faster connection`,
      ),
    );
  };
  const window = setInterval(() => {
    if (req.complete || socket.destroyed) return stop();
    const read = socket.bytesRead;
    if (read - last < minPerWindow) trip(`less than ${limits.bodyMinBytesPerSecond} bytes per second`);
    last = read;
  }, limits.bodyRateWindowMs);
  const deadline = setTimeout(
    () => trip(`not complete within ${Math.round(limits.bodyTimeoutMs / 1000)} s`),
    limits.bodyTimeoutMs,
  );
  window.unref();
  deadline.unref();
  function stop() {
    clearInterval(window);
    clearTimeout(deadline);
  }
  onSettled(stop);
  return controller.signal;
}

/**
 * The body as Fastify's own parsers (JSON) read it, failing with the timeout's AppError when the signal
 * aborts; Fastify hands that error to the error handler, which answers 408.
 */
function guarded(raw: IncomingMessage, signal: AbortSignal): PassThrough {
  const out = new PassThrough();
  raw.pipe(out);
  raw.on('error', (err) => out.destroy(err));
  const abort = () => {
    raw.unpipe(out);
    out.destroy(signal.reason as Error);
  };
  // already too slow before parsing began (a slow hook): fail as soon as the parser listens
  if (signal.aborted) process.nextTick(abort);
  else signal.addEventListener('abort', abort, { once: true });
  return out;
}

export function registerBodyTimeout(app: FastifyInstance, limits: BodyTimeoutLimits): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    if (!hasBody(request.raw)) return;
    request.bodyTimeout = watchBody(request.raw, limits, (stop) => reply.raw.once('close', stop));
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    // multipart bodies are read from the raw request by the upload reader, which watches the signal itself
    if (!request.bodyTimeout || /^multipart\//i.test(request.headers['content-type'] ?? '')) return payload;
    return guarded(request.raw, request.bodyTimeout);
  });
}
