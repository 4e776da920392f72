import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { dataResponse, errorResponse, type Named, named, NoContent, pageResponse, ref } from '../../http/openapi.js';
import { CursorPageQuery, pageRequest } from '../../http/pagination.js';
import { createApiKey, listApiKeyPage, revokeApiKey } from './api-keys.js';
import { getAccountSettings, updateAccountSettingsOf } from './account-settings.js';
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
    {
      description: 'An API key, without its secret',
      examples: [
        {
          id: 'key_01a21680738b60de6c07f430',
          name: 'billing server',
          prefix: 'fc_live_7Hq2',
          createdAt: '2026-11-26T06:40:00.000Z',
          lastUsedAt: '2026-11-26T07:02:13.000Z',
          revokedAt: null,
        },
      ],
    },
  ),
);
const ApiKeyCreated = named(
  'ApiKeyCreated',
  Type.Intersect(
    [ref(ApiKeySchema), Type.Object({ key: Type.String({ description: 'The secret; shown only in this answer' }) })],
    {
      description: 'A new API key with its secret',
      examples: [
        {
          id: 'key_01a21680738b60de6c07f431',
          name: 'ci',
          prefix: 'fc_live_Xm4d',
          createdAt: '2026-11-26T06:45:00.000Z',
          lastUsedAt: null,
          revokedAt: null,
          key: 'fc_live_Xm4dP9sK2vQ7bN1cR8tW3yZ6aE0fH5jL',
        },
      ],
    },
  ),
);
const ApiKeyCreate = named(
  'ApiKeyCreate',
  Type.Object(
    { name: Type.String({ minLength: 1, maxLength: 200 }) },
    { additionalProperties: false, examples: [{ name: 'billing server' }] },
  ),
);
const LocaleSetting = (description: string) =>
  Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description });
const AccountSettingsSchema = named(
  'AccountSettings',
  Type.Object(
    {
      locale: LocaleSetting("BCP 47 locale of the account's renders; null: the server's DEFAULT_LOCALE"),
      timezone: LocaleSetting("IANA time zone of the account's renders; null: the server's DEFAULT_TIMEZONE"),
      effective: Type.Object(
        { locale: Type.String(), timezone: Type.String() },
        { description: 'What a render uses when neither its request options nor its template give a value' },
      ),
    },
    {
      description:
        "The account's render defaults. A render's locale and time zone are its request options', else its template's, else these, else the server's",
      examples: [{ locale: 'en-US', timezone: null, effective: { locale: 'en-US', timezone: 'Europe/Paris' } }],
    },
  ),
);
const AccountSettingsPatch = named(
  'AccountSettingsPatch',
  Type.Object(
    {
      locale: Type.Optional(LocaleSetting("BCP 47 locale (e.g. en-US); null: back to the server's")),
      timezone: Type.Optional(LocaleSetting("IANA time zone (e.g. America/New_York); null: back to the server's")),
    },
    {
      additionalProperties: false,
      description: 'The settings to change; the others keep their value',
      examples: [{ locale: 'en-US', timezone: 'America/New_York' }],
    },
  ),
);
const ApiKeyList = pageResponse(ApiKeySchema);
const AccountSettingsResponse = dataResponse(AccountSettingsSchema);
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
  AccountSettingsSchema,
  AccountSettingsPatch,
  AccountSettingsResponse,
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
          description:
            "The month's renders, the account's templates and API keys against the plan's limits, with the plan's features (webhooks, watermark, retention days). Free to call; a render refused with RENDER_LIMIT_REACHED is what follows when `renders.used` reaches `renders.limit`.",
          summary: 'Usage of the current UTC month against the plan',
          response: { 200: ref(UsageResponse, 'The usage') },
        },
      },
      async (request) => ({ data: await getUsage(deps, { id: request.auth.accountId, plan: request.auth.plan }) }),
    );

    app.get(
      '/account/settings',
      {
        schema: {
          tags: ['account'],
          operationId: 'getAccountSettings',
          description:
            "The account's own render defaults (`locale`, `timezone`), null where unset. A render uses its request's `options` first, then its template's settings, then these, then the server's.",
          summary: "The account's render defaults (locale, time zone)",
          response: { 200: ref(AccountSettingsResponse, 'The settings') },
        },
      },
      async (request) => ({ data: await getAccountSettings(deps, request.auth.accountId) }),
    );

    app.patch(
      '/account/settings',
      {
        schema: {
          tags: ['account'],
          operationId: 'updateAccountSettings',
          description:
            "Sets or clears (with null) the account's render defaults; properties left out keep their value. A value that is not a locale or an IANA time zone is refused with 422 VALIDATION_ERROR. Renders already made are not changed.",
          summary: "Set the account's render defaults: below a request's options and a template's, above the server's",
          body: ref(AccountSettingsPatch),
          response: { 200: ref(AccountSettingsResponse, 'The settings as they now are'), 422: errorResponse() },
        },
      },
      async (request) => ({ data: await updateAccountSettingsOf(deps, request.auth.accountId, request.body) }),
    );

    app.get(
      '/api-keys',
      {
        schema: {
          tags: ['api-keys'],
          operationId: 'listApiKeys',
          description:
            "Every key of the account, revoked ones included (with `revokedAt`), newest first; a key's secret is never shown again after its creation. Paged with `page`/`limit` or `starting_after` (see `meta.nextCursor`).",
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
          description:
            'Creates a key for this account, named by `name` ("unnamed" when no body is sent). The secret (`key`, fc_live_...) is in this answer only: store it, it cannot be read again. The plan\'s key quota counts active (unrevoked) keys: beyond it, 403 API_KEY_LIMIT_REACHED.',
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
          description:
            'Revokes the key at once and for good: the next request with it answers 401. Revoking an already revoked key answers 204 again; a key of another account is 404 API_KEY_NOT_FOUND. The key used for this request may revoke itself.',
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
