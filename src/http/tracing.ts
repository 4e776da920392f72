import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestSpan, Tracer } from '../ports/tracer.js';

/**
 * One span per HTTP request, current while its hooks and handler run, so the engine, storage and
 * database spans they make are its children. Attributes: method, route pattern, status, request id and
 * account id; never headers (the API key), the URL's values or the body. Nothing is registered when
 * tracing is off.
 */
export function registerTracing(app: FastifyInstance, tracer: Tracer): void {
  if (!tracer.enabled) return;
  const spans = new WeakMap<FastifyRequest, RequestSpan>();
  const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';
  app.addHook('onRequest', (request, _reply, done) => {
    const route = routeOf(request);
    const span = tracer.startRequest(
      `${request.method} ${route}`,
      { 'http.request.method': request.method, 'http.route': route, 'formcast.request_id': request.id },
      request.headers,
    );
    spans.set(request, span);
    span.activate(done);
  });
  // Made current again for the handler: a body read from the socket may resume outside it.
  app.addHook('preHandler', (request, _reply, done) => {
    const span = spans.get(request);
    if (span) span.activate(done);
    else done();
  });
  const end = (request: FastifyRequest, attributes: Record<string, string | number | boolean>, error: boolean) => {
    // set by authentication (http/auth.ts); absent on public routes and refused keys
    const accountId = request.auth?.accountId;
    if (accountId) attributes['formcast.account_id'] = accountId;
    spans.get(request)?.end(attributes, error);
  };
  app.addHook('onResponse', async (request, reply) =>
    end(request, { 'http.response.status_code': reply.statusCode }, reply.statusCode >= 500),
  );
  // the client hung up: not a failure of ours
  app.addHook('onRequestAbort', async (request) => end(request, { 'formcast.aborted': true }, false));
}
