import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';

// An answer sent before the request body was read to its end (413 at the upload limit, 401 on an
// upload, 408 for a stalled body) must still reach the client. Closing the socket at once while the
// client is writing makes the kernel send a reset, and the client sees EPIPE/ECONNRESET instead of our
// answer. So the rest of the body is read and discarded, a bounded amount for a bounded time: clients
// that read answers while sending (Node's fetch/undici, browsers, curl) stop on their own once the answer
// is complete; one that keeps pushing past the bounds is cut, with no more than the bound wasted.

export interface DrainLimits {
  /** Bytes of an unread body discarded after an early answer before the connection is cut. */
  bodyDrainBytes: number;
  /** Time an unread body may keep arriving after an early answer before the connection is cut, ms. */
  bodyDrainMs: number;
}

/** Discard what remains of `req`'s body, destroying its socket past the limits. */
function drainBody(req: IncomingMessage, limits: DrainLimits): void {
  const socket = req.socket;
  if (req.complete || !socket || socket.destroyed) return;
  let drained = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, limits.bodyDrainMs);
  timer.unref();
  // A kept-alive socket outlives the request: its listener goes with the drain, or every early answer
  // on one connection would leave one behind.
  const done = () => {
    clearTimeout(timer);
    req.off('end', done);
    socket.off('close', done);
  };
  // whatever consumer was reading (a multipart parser abandoned at the limit) gets no more bytes
  req.unpipe();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > limits.bodyDrainBytes) cut();
  });
  req.once('end', done);
  socket.once('close', done);
  req.resume();
}

/** After every answer whose request body was not read to its end, drain it within the limits. */
export function registerBodyDrain(app: FastifyInstance, limits: DrainLimits): void {
  app.addHook('onResponse', async (request) => drainBody(request.raw, limits));
}
