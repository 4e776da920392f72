import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse } from '../../http/pagination.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { getUsage } from './usage.js';

const Limit = Type.Object({ used: Type.Integer(), limit: Type.Integer() });
const UsageSchema = Type.Object({
  plan: Type.String(),
  month: Type.String({ description: 'YYYY-MM (UTC)' }),
  renders: Limit,
  templates: Limit,
  apiKeys: Limit,
  features: Type.Object({ webhooksEnabled: Type.Boolean(), watermark: Type.Boolean(), retentionDays: Type.Integer() }),
});
const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to tell keys apart' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});

export const accountRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/renders/usage',
      {
        schema: {
          tags: ['usage'],
          summary: 'Usage of the current UTC month against the plan',
          response: { 200: Type.Object({ data: UsageSchema }), 401: errorResponse() },
        },
      },
      async (request) => ({ data: await getUsage(deps, { id: request.auth.accountId, plan: request.auth.plan }) }),
    );

    app.get(
      '/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          summary: 'List the API keys of the account (never the secrets)',
          response: { 200: Type.Object({ data: Type.Array(ApiKeySchema) }) },
        },
      },
      async (request) => ({ data: await listApiKeys(deps, request.auth.accountId) }),
    );

    app.post(
      '/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          summary: 'Create an API key; the secret is shown once, in this response',
          body: Type.Optional(
            Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
          ),
          response: {
            201: Type.Object({ data: Type.Intersect([ApiKeySchema, Type.Object({ key: Type.String() })]) }),
            403: errorResponse(),
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
          summary: 'Revoke an API key at once',
          params: Type.Object({ id: Type.String() }),
          response: { 204: Type.Null(), 404: errorResponse() },
        },
      },
      async (request, reply) => {
        await revokeApiKey(deps, request.auth.accountId, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
