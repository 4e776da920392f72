import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from './deps.js';
import { registerErrorHandler } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi-document.js';
import { commonComponents } from './http/openapi.js';
import { registerJsonBody } from './http/json-body.js';
import { registerNulGuard } from './http/nul-guard.js';
import { registerBodyDrain } from './http/body-drain.js';
import { registerBodyTimeout } from './http/body-timeout.js';
import { closeSilentSocketsOnClose } from './http/silent-sockets.js';
import { registerTracing } from './http/tracing.js';
import { authenticate, rateLimit } from './http/auth.js';
import { admission } from './http/admission.js';
import { keyAuthenticator } from './modules/accounts/api-keys.js';
import { ping } from './adapters/db/database.js';
import { AppError } from './errors.js';
import { accountComponents, accountRoutes } from './modules/accounts/routes.js';
import { templateComponents, templateRoutes } from './modules/templates/routes.js';
import { fieldComponents, fieldRoutes } from './modules/templates/field-routes.js';
import { fieldEditComponents, fieldEditRoutes } from './modules/templates/field-edit-routes.js';
import { detectComponents, detectRoutes } from './modules/templates/detect-routes.js';
import { renderComponents, renderRoutes } from './modules/renders/routes.js';
import { downloadRoutes } from './modules/downloads/routes.js';
import { dashboard } from './http/dashboard.js';
import { webhookComponents, webhookRoutes } from './modules/webhooks/routes.js';
import { eventComponents, WEBHOOK_EVENTS } from './modules/webhooks/event-schemas.js';
import { signingComponents, signingRoutes } from './modules/signing/routes.js';
import { batchComponents, batchRoutes } from './modules/batches/routes.js';
import { lazySchemaCompilers } from './http/lazy-schema-compilers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request arrived (the metrics of a request its client aborted) */
    receivedAt: number;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The HTTP app, without listen(): tests build it exactly as `formcast serve` does. */
export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const schemas = lazySchemaCompilers();
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.limits.jsonBodyBytes,
    // Accept a caller's X-Request-Id when it is sane, so logs can be correlated across systems.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
    },
    ajv: {
      customOptions: {
        verbose: true,
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        discriminator: true,
        validateSchema: false,
      },
    },
    // On close: idle keep-alive sockets are closed at once, in-flight requests finish (then their
    // sockets close too), so SIGTERM drains quickly instead of waiting for clients to hang up.
    forceCloseConnections: 'idle',
    // Behind a load balancer the client address (failed-auth throttle, logs) comes from X-Forwarded-For.
    trustProxy: typeof deps.config.trustProxy === 'number' ? trustHops(deps.config.trustProxy) : deps.config.trustProxy,
    return503OnClosing: true,
    schemaController: { compilersFactory: schemas.compilersFactory },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('compileAllSchemas', schemas.compileAll);

  // first, so the request's span is current in every hook after it
  registerTracing(app as unknown as FastifyInstance, deps.tracer);
  app.decorateRequest('receivedAt', 0);
  app.addHook('onRequest', async (request, reply) => {
    request.receivedAt = performance.now();
    reply.header('X-Request-Id', request.id);
    // Every answer: no browser may sniff a PDF or JSON into something else.
    reply.header('X-Content-Type-Options', 'nosniff');
  });
  // Closing: answers still in flight go out with Connection: close, so their keep-alive sockets end
  // with them and close() need not wait for clients to hang up.
  closeSilentSocketsOnClose(app as unknown as FastifyInstance);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('Connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    // the route pattern, not the URL, keeps label cardinality bounded
    deps.metrics.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  // A client that closed its request before the answer: no answer goes out, so onResponse never runs.
  // Counted as 499 (nginx's "client closed request"), as its log line says.
  app.addHook('onRequestAbort', async (request) => {
    const seconds = (performance.now() - request.receivedAt) / 1000;
    deps.metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', 499, seconds);
  });
  registerErrorHandler(app);
  registerBodyDrain(app as unknown as FastifyInstance, deps.config.limits);
  registerBodyTimeout(app as unknown as FastifyInstance, deps.config.limits);
  // JSON and multipart only: a text/plain body is a wrong Content-Type (400), not a string to validate.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app as unknown as FastifyInstance);
  registerNulGuard(app as unknown as FastifyInstance);

  // Named component schemas (see http/openapi.ts): registered before the routes that ref() them.
  await registerOpenApi(
    app as unknown as FastifyInstance,
    deps.config.publicUrl,
    [
      ...commonComponents,
      ...accountComponents,
      ...templateComponents,
      ...fieldComponents,
      ...fieldEditComponents,
      ...detectComponents,
      ...renderComponents,
      ...batchComponents,
      ...webhookComponents,
      ...signingComponents,
      ...eventComponents,
    ],
    Object.values(WEBHOOK_EVENTS),
  );
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async () => {
    try {
      await ping(deps.db);
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'database unreachable');
    }
    try {
      await deps.blobs.ping?.();
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'file store unreachable');
    }
    return { status: 'ready' };
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (deps.config.metricsToken && request.headers.authorization !== `Bearer ${deps.config.metricsToken}`) {
      throw new AppError('UNAUTHORIZED', 'GET /metrics needs the METRICS_TOKEN bearer token');
    }
    const m = await deps.metrics.expose();
    return reply.type(m.contentType).send(m.body);
  });

  // The web dashboard: static files; it calls the API below with the key the user signs in with.
  await app.register(dashboard());

  // Signed downloads carry their own authorisation (the signature) and are not rate-limited.
  await app.register(downloadRoutes(deps), { prefix: '/v1' });

  await app.register(
    async (v1) => {
      v1.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      await v1.register(async (api) => {
        api.addHook('onRequest', authenticate(deps, keyAuthenticator(deps)));
        api.addHook('onRequest', rateLimit(deps));
        api.addHook('onRequest', admission(deps));
        await api.register(accountRoutes(deps));
        await api.register(templateRoutes(deps));
        await api.register(fieldRoutes(deps));
        await api.register(fieldEditRoutes(deps));
        await api.register(detectRoutes(deps));
        await api.register(renderRoutes(deps));
        await api.register(batchRoutes(deps));
        await api.register(webhookRoutes(deps));
        await api.register(signingRoutes(deps));
      });
    },
    { prefix: '/v1' },
  );

  return app as unknown as FastifyInstance;
}

/** Trust the nearest `hops` proxies' X-Forwarded-For entries (TRUST_PROXY=<number>). */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}
