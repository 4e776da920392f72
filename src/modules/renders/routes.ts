import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse, PageMeta } from '../../http/pagination.js';
import { hashBody, idempotent, type ReplayCodec } from '../../http/idempotency.js';
import { createRender } from './create-render.js';
import { deleteRender, getRender, listRenders } from './manage-renders.js';

const RenderCreated = Type.Object({
  renderId: Type.String(),
  status: Type.String(),
  downloadUrl: Type.String(),
  expiresIn: Type.Integer(),
  fileSize: Type.Integer(),
  durationMs: Type.Integer(),
  warnings: Type.Array(Type.String()),
});
const ListItem = Type.Object({
  id: Type.String(),
  templateId: Type.String(),
  templateName: Type.String(),
  status: Type.String(),
  fileSize: Type.Integer(),
  durationMs: Type.Integer(),
  expiresAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
  downloadUrl: Type.Union([Type.String(), Type.Null()]),
});
const Detail = Type.Intersect([
  ListItem,
  Type.Object({
    expiresIn: Type.Integer(),
    warnings: Type.Array(Type.String()),
    templateVersion: Type.Integer(),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  }),
]);
export const Options = Type.Object(
  {
    flatten: Type.Optional(Type.Boolean({ default: true })),
    locale: Type.Optional(Type.String({ default: 'fr-FR', maxLength: 64 })),
    timezone: Type.Optional(Type.String({ default: 'Europe/Paris', maxLength: 64 })),
    watermark: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('auto')], { default: 'auto' })),
    strict: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

type Created = { data: { renderId: string; downloadUrl: string | null; expiresIn: number } };

/**
 * Replays of POST /renders: the stored answer has no download link (a live signature must not rest in
 * the database); the replay signs a fresh one, as GET /renders/:id does. A render deleted since then
 * answers RENDER_NOT_FOUND: there is no file left to link to.
 */
function replayWithFreshLink(deps: Deps, accountId: string): ReplayCodec {
  return {
    store: (body) => ({ data: { ...(body as Created).data, downloadUrl: null } }),
    restore: async (stored) => {
      const data = (stored as Created).data;
      const fresh = await getRender(deps, accountId, data.renderId);
      return { data: { ...data, downloadUrl: fresh.downloadUrl, expiresIn: fresh.expiresIn } };
    },
  };
}

export const renderRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/renders',
      {
        schema: {
          tags: ['renders'],
          summary: 'Fill a template with data and get a download link',
          body: Type.Object(
            {
              templateId: Type.String({ minLength: 1, maxLength: 100 }),
              data: Type.Object(
                {},
                { additionalProperties: true, description: 'Values keyed by schema field name (or original PDF name)' },
              ),
              options: Type.Optional(Options),
            },
            { additionalProperties: false },
          ),
          response: {
            201: Type.Object({ data: RenderCreated }),
            404: errorResponse(),
            422: errorResponse(),
            429: errorResponse(),
          },
        },
      },
      async (request, reply) => {
        return idempotent(
          deps,
          request,
          reply,
          'POST /v1/renders',
          hashBody(request.rawBody ?? ''),
          async () => ({
            status: 201,
            body: {
              data: await createRender(deps, { id: request.auth.accountId, plan: request.auth.plan }, request.body),
            },
          }),
          replayWithFreshLink(deps, request.auth.accountId),
        );
      },
    );

    app.get(
      '/renders',
      {
        schema: {
          tags: ['renders'],
          summary: 'List renders, newest first',
          querystring: Type.Object(
            {
              page: Type.Integer({ minimum: 1, default: 1 }),
              limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
              templateId: Type.Optional(Type.String({ maxLength: 100 })),
              status: Type.Optional(Type.Union([Type.Literal('completed'), Type.Literal('failed')])),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Object({ data: Type.Array(ListItem), meta: PageMeta }) },
        },
      },
      async (request) => listRenders(deps, request.auth.accountId, request.query),
    );

    app.get(
      '/renders/:id',
      {
        schema: {
          tags: ['renders'],
          summary: 'Get a render with a freshly signed download link',
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          response: { 200: Type.Object({ data: Detail }), 404: errorResponse() },
        },
      },
      async (request) => ({ data: await getRender(deps, request.auth.accountId, request.params.id) }),
    );

    app.delete(
      '/renders/:id',
      {
        schema: {
          tags: ['renders'],
          summary: 'Delete a render and its file at once',
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          response: { 204: Type.Null(), 404: errorResponse() },
        },
      },
      async (request, reply) => {
        await deleteRender(deps, request.auth.accountId, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
