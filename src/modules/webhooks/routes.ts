import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { CursorPageQuery, pageRequest } from '../../http/pagination.js';
import {
  dataResponse,
  errorResponse,
  type Named,
  named,
  NoContent,
  pageResponse,
  ref,
  IdParams,
} from '../../http/openapi.js';
import { EVENT_TYPES } from '../events/event-types.js';
import { RENDER_COMPLETED_EXAMPLE } from './event-schemas.js';
import { DELIVERY_STATUSES, getDelivery, listDeliveries, retryDelivery, sendTestEvent } from './manage-deliveries.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpointLog,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from './manage-endpoints.js';
import { requireWebhooks } from './require-webhooks.js';

const EventName = Type.String({
  description: `"*" (every type) or one of ${EVENT_TYPES.join(', ')}`,
  maxLength: 100,
});
// Hand-written examples (the OpenAPI document's; `npm run lint:openapi` checks them against the schemas):
// one endpoint, one delivery being retried, as a client would meet them.
const ENDPOINT_EXAMPLE = {
  id: 'whk_01a21680738b60de6c07f410',
  url: 'https://hooks.example.com/formcast',
  description: 'Billing: file completed renders',
  events: ['render.completed', 'render.failed'],
  enabled: true,
  disabledReason: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-26T06:20:00.000Z',
  updatedAt: '2026-11-26T06:20:00.000Z',
};
const FIRST_ATTEMPT = {
  at: '2026-11-26T06:15:01.000Z',
  statusCode: null,
  durationMs: 10000,
  error: 'timed out after 10000 ms',
};
const SECOND_ATTEMPT = {
  at: '2026-11-26T06:15:06.000Z',
  statusCode: 503,
  durationMs: 212,
  error: 'HTTP 503: upstream unavailable',
};
const DELIVERY_EXAMPLE = {
  id: 'whd_01a21680738b60de6c07f411',
  endpointId: ENDPOINT_EXAMPLE.id,
  eventId: RENDER_COMPLETED_EXAMPLE.id,
  eventType: 'render.completed',
  status: 'pending',
  attempts: 2,
  nextAttemptAt: '2026-11-26T06:20:06.000Z',
  lastAttemptAt: SECOND_ATTEMPT.at,
  lastStatusCode: 503,
  lastError: SECOND_ATTEMPT.error,
  lastDurationMs: 212,
  attemptLog: [FIRST_ATTEMPT, SECOND_ATTEMPT],
  createdAt: '2026-11-26T06:15:00.000Z',
  completedAt: null,
};

const Endpoint = named(
  'WebhookEndpoint',
  Type.Object(
    {
      id: Type.String(),
      url: Type.String(),
      description: Type.String(),
      events: Type.Array(Type.String(), { description: 'subscribed event types; ["*"] for all' }),
      enabled: Type.Boolean(),
      disabledReason: Type.Union([Type.String(), Type.Null()], {
        description: '"failing" when the service disabled the endpoint after failing for days',
      }),
      previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'until when the secret replaced by the last rotation still signs',
      }),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    { description: 'An HTTPS endpoint that receives events', examples: [ENDPOINT_EXAMPLE] },
  ),
);
const WithSecret = named(
  'WebhookEndpointWithSecret',
  Type.Intersect(
    [
      ref(Endpoint),
      Type.Object({ secret: Type.String({ description: 'Standard Webhooks secret (whsec_...), shown only here' }) }),
    ],
    {
      description: 'An endpoint with its signing secret: in the answers that create or rotate it only',
      examples: [{ ...ENDPOINT_EXAMPLE, secret: 'whsec_Y2Y0ZDNkNmQtOTcwNS00YjFkLWE3NjMtNjRmNDcxZDJhM2E1' }],
    },
  ),
);
const Attempt = named(
  'WebhookAttempt',
  Type.Object(
    {
      at: Type.String({ format: 'date-time' }),
      statusCode: Type.Union([Type.Integer(), Type.Null()]),
      durationMs: Type.Integer(),
      error: Type.Union([Type.String(), Type.Null()]),
    },
    { examples: [SECOND_ATTEMPT] },
  ),
);
const Delivery = named(
  'WebhookDelivery',
  Type.Object(
    {
      id: Type.String(),
      endpointId: Type.String(),
      eventId: Type.String({ description: 'also the webhook-id header: the same on every attempt' }),
      eventType: Type.String(),
      status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
      attempts: Type.Integer(),
      nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      lastAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
      lastError: Type.Union([Type.String(), Type.Null()]),
      lastDurationMs: Type.Union([Type.Integer(), Type.Null()]),
      attemptLog: Type.Array(ref(Attempt)),
      createdAt: Type.String({ format: 'date-time' }),
      completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    },
    { description: "An event's delivery to one endpoint, with its attempts", examples: [DELIVERY_EXAMPLE] },
  ),
);
const DeliveryWithPayload = named(
  'WebhookDeliveryWithPayload',
  Type.Intersect(
    [
      ref(Delivery),
      Type.Object({ payload: Type.Unknown({ description: 'the exact body sent: { id, type, createdAt, data }' }) }),
    ],
    {
      examples: [
        {
          ...DELIVERY_EXAMPLE,
          payload: RENDER_COMPLETED_EXAMPLE,
        },
      ],
    },
  ),
);
const LogEntry = named(
  'WebhookEndpointLogEntry',
  Type.Object(
    {
      id: Type.String(),
      type: Type.String({ description: 'created, updated, secret.rotated, disabled or enabled' }),
      message: Type.String(),
      createdAt: Type.String({ format: 'date-time' }),
    },
    {
      examples: [
        {
          id: 'whl_01a21680738b60de6c07f413',
          type: 'secret.rotated',
          message: 'secret rotated; the previous one signs until 2026-11-27T06:25:00.000Z',
          createdAt: '2026-11-26T06:25:00.000Z',
        },
      ],
    },
  ),
);
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https URL of a public host' });
const Events = Type.Array(EventName, { minItems: 1, maxItems: 50 });
const Description = Type.String({ maxLength: 2000 });
const EndpointCreate = named(
  'WebhookEndpointCreate',
  Type.Object(
    {
      url: Url,
      events: Type.Optional(Events),
      description: Type.Optional(Description),
      enabled: Type.Optional(Type.Boolean()),
    },
    {
      additionalProperties: false,
      examples: [
        {
          url: ENDPOINT_EXAMPLE.url,
          events: ENDPOINT_EXAMPLE.events,
          description: ENDPOINT_EXAMPLE.description,
        },
      ],
    },
  ),
);
const EndpointPatch = named(
  'WebhookEndpointPatch',
  Type.Object(
    {
      url: Type.Optional(Url),
      events: Type.Optional(Events),
      description: Type.Optional(Description),
      enabled: Type.Optional(Type.Boolean()),
    },
    {
      additionalProperties: false,
      description: 'The properties to change; the others keep their value',
      examples: [{ events: ['render.completed', 'render.failed', 'render-batch.completed'], enabled: true }],
    },
  ),
);
const EndpointResponse = dataResponse(Endpoint);
const WithSecretResponse = dataResponse(WithSecret);
const EndpointList = pageResponse(Endpoint);
const DeliveryResponse = dataResponse(Delivery);
const DeliveryWithPayloadResponse = dataResponse(DeliveryWithPayload);
const DeliveryList = pageResponse(Delivery);
const LogList = pageResponse(LogEntry, 'WebhookEndpointLog');

/** Named schemas of this module (app.ts registers them; they are #/components/schemas/<name>). */
export const webhookComponents: Named[] = [
  Endpoint,
  WithSecret,
  Attempt,
  Delivery,
  DeliveryWithPayload,
  LogEntry,
  EndpointCreate,
  EndpointPatch,
  EndpointResponse,
  WithSecretResponse,
  EndpointList,
  DeliveryResponse,
  DeliveryWithPayloadResponse,
  DeliveryList,
  LogList,
];

const Errors = {
  403: errorResponse('WEBHOOKS_NOT_ENABLED on this plan, or WEBHOOK_ENDPOINT_LIMIT_REACHED'),
  404: errorResponse('WEBHOOK_ENDPOINT_NOT_FOUND or WEBHOOK_DELIVERY_NOT_FOUND'),
  422: errorResponse('VALIDATION_ERROR (e.g. a URL that is not https or resolves to a private address)'),
};
const tags = ['webhooks'];

export const webhookRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const account = (request: { auth: { accountId: string; plan: Deps['plans'][keyof Deps['plans']]['name'] } }) => ({
      id: request.auth.accountId,
      plan: request.auth.plan,
    });
    // the plan feature gate comes before parameter validation: a Free account learns it needs a plan
    app.addHook('preValidation', async (request) => requireWebhooks(deps, request.auth.plan));

    app.post(
      '/webhook-endpoints',
      {
        schema: {
          tags,
          operationId: 'createWebhookEndpoint',
          description:
            'Registers an https URL to receive the `events` listed (or `*`) as signed POSTs (Standard Webhooks; the payloads are under `webhooks` in this document). The signing secret (`whsec_...`) is in this answer only. Needs a plan with webhooks (403 WEBHOOKS_NOT_ENABLED) and counts against its endpoint limit (403 WEBHOOK_ENDPOINT_LIMIT_REACHED); a URL that is not https or resolves to a private address is 422 VALIDATION_ERROR.',
          summary: 'Create a webhook endpoint; its signing secret is shown once, in this response',
          body: ref(EndpointCreate),
          response: { 201: ref(WithSecretResponse, 'The endpoint, with its secret (shown once)'), ...Errors },
        },
      },
      async (request, reply) =>
        reply.status(201).send({ data: await createEndpoint(deps, account(request), request.body) }),
    );

    app.get(
      '/webhook-endpoints',
      {
        schema: {
          tags,
          operationId: 'listWebhookEndpoints',
          description:
            "The account's endpoints, newest first, without their secrets. Paged with `page`/`limit` or `starting_after` (see `meta.nextCursor`). 403 WEBHOOKS_NOT_ENABLED on a plan without webhooks.",
          summary: 'List webhook endpoints, newest first',
          querystring: CursorPageQuery,
          response: { 200: ref(EndpointList, 'A page of endpoints'), ...Errors },
        },
      },
      async (request) => listEndpoints(deps, account(request), pageRequest(request.query)),
    );

    app.get(
      '/webhook-endpoints/:id',
      {
        schema: {
          tags,
          operationId: 'getWebhookEndpoint',
          description:
            "One endpoint: URL, subscribed events, enabled state and, when the service disabled it, why (`disabledReason`). Never the secret. 404 WEBHOOK_ENDPOINT_NOT_FOUND for another account's endpoint.",
          summary: 'Get a webhook endpoint',
          params: IdParams,
          response: { 200: ref(EndpointResponse, 'The endpoint'), ...Errors },
        },
      },
      async (request) => ({ data: await getEndpoint(deps, account(request), request.params.id) }),
    );

    app.patch(
      '/webhook-endpoints/:id',
      {
        schema: {
          tags,
          operationId: 'updateWebhookEndpoint',
          description:
            "Changes the URL, events or description, or enables / disables the endpoint; properties left out keep their value and an empty body is 422. Enabling an endpoint the service disabled after days of failing deliveries clears `disabledReason`. The change is written to the endpoint's log.",
          summary: 'Change the URL, events or description, or enable / disable an endpoint',
          params: IdParams,
          body: ref(EndpointPatch),
          response: { 200: ref(EndpointResponse, 'The updated endpoint'), ...Errors },
        },
      },
      async (request) => ({ data: await updateEndpoint(deps, account(request), request.params.id, request.body) }),
    );

    app.delete(
      '/webhook-endpoints/:id',
      {
        schema: {
          tags,
          operationId: 'deleteWebhookEndpoint',
          description:
            'Deletes the endpoint with its pending and past deliveries and its log: nothing more is sent to it, including retries already scheduled.',
          summary: 'Delete a webhook endpoint with its deliveries and log',
          params: IdParams,
          response: { 204: NoContent, ...Errors },
        },
      },
      async (request, reply) => {
        await deleteEndpoint(deps, account(request), request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/webhook-endpoints/:id/rotate-secret',
      {
        schema: {
          tags,
          operationId: 'rotateWebhookEndpointSecret',
          description:
            'Generates a new signing secret, shown in this answer only. For 24 hours deliveries carry two signatures (new and previous secret) so receivers can switch without losing any; then only the new one signs. A rotation racing another is 409 CONFLICT.',
          summary: 'New signing secret (shown once); the previous one keeps signing for 24 hours',
          params: IdParams,
          response: {
            200: ref(WithSecretResponse, 'The endpoint with its new secret (shown once)'),
            409: errorResponse('CONFLICT: another rotation of this endpoint happened at the same moment'),
            ...Errors,
          },
        },
      },
      async (request) => ({ data: await rotateEndpointSecret(deps, account(request), request.params.id) }),
    );

    app.post(
      '/webhook-endpoints/:id/test',
      {
        schema: {
          tags,
          operationId: 'sendWebhookTestEvent',
          description:
            'Queues a webhook.test event for this endpoint only, even when it is disabled or subscribed to nothing matching, to check a receiver and its signature verification. Answers 202 with the delivery; follow it with GET /v1/webhook-deliveries/{id}.',
          summary: 'Send a webhook.test event to this endpoint',
          params: IdParams,
          response: { 202: ref(DeliveryResponse, 'The test delivery, queued'), ...Errors },
        },
      },
      async (request, reply) =>
        reply.status(202).send({ data: await sendTestEvent(deps, account(request), request.params.id) }),
    );

    app.get(
      '/webhook-endpoints/:id/deliveries',
      {
        schema: {
          tags,
          operationId: 'listWebhookDeliveries',
          description:
            'The deliveries to this endpoint, newest first, optionally only those of `status` (pending, succeeded, failed): attempts, last status code, error and duration. Paged with `page`/`limit` or `starting_after` (see `meta.nextCursor`).',
          summary: 'Deliveries to this endpoint, newest first: status, attempts, response codes, timing',
          params: IdParams,
          querystring: Type.Object(
            {
              ...CursorPageQuery.properties,
              status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
            },
            { additionalProperties: false },
          ),
          response: { 200: ref(DeliveryList, 'A page of deliveries'), ...Errors },
        },
      },
      async (request) =>
        listDeliveries(deps, account(request), request.params.id, {
          ...pageRequest(request.query),
          status: request.query.status,
        }),
    );

    app.get(
      '/webhook-endpoints/:id/log',
      {
        schema: {
          tags,
          operationId: 'listWebhookEndpointLog',
          description:
            'What happened to the endpoint, newest first: created, updated, secret.rotated, disabled (by you or by the service after failing deliveries) and enabled. Paged with `page`/`limit` or `starting_after`.',
          summary: "The endpoint's own log: created, changed, secret rotated, disabled, enabled",
          params: IdParams,
          querystring: CursorPageQuery,
          response: { 200: ref(LogList, 'A page of log entries'), ...Errors },
        },
      },
      async (request) => listEndpointLog(deps, request.auth.accountId, request.params.id, pageRequest(request.query)),
    );

    app.get(
      '/webhook-deliveries/:id',
      {
        schema: {
          tags,
          operationId: 'getWebhookDelivery',
          description:
            'One delivery with every attempt (time, status code, error, duration) and the exact JSON body it sends, as declared under `webhooks` in this document.',
          summary: 'A delivery with the exact payload it sends',
          params: IdParams,
          response: { 200: ref(DeliveryWithPayloadResponse, 'The delivery and its payload'), ...Errors },
        },
      },
      async (request) => ({ data: await getDelivery(deps, account(request), request.params.id) }),
    );

    app.post(
      '/webhook-deliveries/:id/retry',
      {
        schema: {
          tags,
          operationId: 'retryWebhookDelivery',
          description:
            'Schedules one more attempt of the delivery now, with the same body and webhook-id (receivers deduplicate on it), whatever its status; if it fails, what is left of the retry schedule follows. A delivery being attempted right now is 409 CONFLICT.',
          summary: 'Send a delivery again now (same webhook-id)',
          params: IdParams,
          response: {
            202: ref(DeliveryResponse, 'The delivery, queued again'),
            409: errorResponse('CONFLICT: the delivery is being attempted right now'),
            ...Errors,
          },
        },
      },
      async (request, reply) =>
        reply.status(202).send({ data: await retryDelivery(deps, account(request), request.params.id) }),
    );
  };
