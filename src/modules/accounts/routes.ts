import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { dataResponse, errorResponse, type Named, named, NoContent, pageResponse, ref } from '../../http/openapi.js';
import { CursorPageQuery, pageRequest } from '../../http/pagination.js';
import { createApiKey, listApiKeyPage, revokeApiKey } from './api-keys.js';
import { getUsage } from './usage.js';

const Limit = named('UsageLimit', Type.Object({ used: Type.Integer(), limit: Type.Integer() }));
const UsageSchema = named(
  'Usage',
  Type.Object(
    {
      plan: Type.String(),
      month: Type.String({ description: 'YYYY-MM (UTC)' }),
      renders: ref(Limit),
      templates: ref(Limit),
      apiKeys: ref(Limit),
      features: Type.Object({
        webhooksEnabled: Type.Boolean(),
        watermark: Type.Boolean(),
        retentionDays: Type.Integer(),
      }),
    },
    { description: 'Use of the current UTC month against the plan' },
  ),
);
const ApiKeySchema = named(
  'ApiKey',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      prefix: Type.String({ description: 'First characters of the key, to tell keys apart' }),
      createdAt: Type.String({ format: 'date-time' }),
      lastUsedAt: Type.Union([Type.String(), Type.Null()]),
      revokedAt: Type.Union([Type.String(), Type.Null()]),
    },
    { description: 'An API key, without its secret' },
  ),
);
const ApiKeyCreated = named(
  'ApiKeyCreated',
  Type.Intersect(
    [ref(ApiKeySchema), Type.Object({ key: Type.String({ description: 'The secret; shown only in this answer' }) })],
    { description: 'A new API key with its secret' },
  ),
);
const ApiKeyCreate = named(
  'ApiKeyCreate',
  Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
);
const ApiKeyList = pageResponse(ApiKeySchema);
const UsageResponse = dataResponse(UsageSchema);
const ApiKeyCreatedResponse = dataResponse(ApiKeyCreated);

/** Named schemas of this module (app.ts registers them; they are #/components/schemas/<name>). */
export const accountComponents: Named[] = [
  Limit,
  UsageSchema,
  ApiKeySchema,
  ApiKeyCreated,
  ApiKeyCreate,
  ApiKeyList,
  UsageResponse,
  ApiKeyCreatedResponse,
];

export const accountRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/renders/usage',
      {
        schema: {
          tags: ['usage'],
          operationId: 'getUsage',
          summary: 'Usage of the current UTC month against the plan',
          response: { 200: ref(UsageResponse, 'The usage') },
        },
      },
      async (request) => ({ data: await getUsage(deps, { id: request.auth.accountId, plan: request.auth.plan }) }),
    );

    app.get(
      '/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          operationId: 'listApiKeys',
          summary: 'List the API keys of the account (never the secrets), newest first',
          querystring: CursorPageQuery,
          response: { 200: ref(ApiKeyList, 'A page of keys, revoked ones included'), 422: errorResponse() },
        },
      },
      async (request) => listApiKeyPage(deps, request.auth.accountId, pageRequest(request.query)),
    );

    app.post(
      '/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          operationId: 'createApiKey',
          summary: 'Create an API key; the secret is shown once, in this response',
          body: Type.Optional(ref(ApiKeyCreate)),
          response: {
            201: ref(ApiKeyCreatedResponse, 'The key and its secret'),
            403: errorResponse('API_KEY_LIMIT_REACHED: the plan holds no more keys'),
            422: errorResponse(),
          },
        },
      },
      async (request, reply) => {
        const created = await createApiKey(
          deps,
          { id: request.auth.accountId, plan: request.auth.plan },
          request.body?.name ?? 'unnamed',
        );
        return reply.status(201).send({ data: { ...created.view, key: created.secret } });
      },
    );

    app.delete(
      '/api-keys/:id',
      {
        schema: {
          tags: ['api-keys'],
          operationId: 'revokeApiKey',
          summary: 'Revoke an API key at once',
          params: Type.Object({ id: Type.String() }),
          response: { 204: NoContent, 404: errorResponse('API_KEY_NOT_FOUND') },
        },
      },
      async (request, reply) => {
        await revokeApiKey(deps, request.auth.accountId, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
