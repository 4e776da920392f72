import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse, PageMeta } from '../../http/pagination.js';
import { hashBody, idempotent, type ReplayCodec } from '../../http/idempotency.js';
import { createRender } from './create-render.js';
import { deleteRender, getRender, listRenders } from './manage-renders.js';

const RenderCreated = Type.Object({
  renderId: Type.String(),
  status: Type.String({ description: 'completed (201), or pending (202: accepted asynchronously)' }),
  downloadUrl: Type.Union([Type.String(), Type.Null()], { description: 'null while pending' }),
  expiresIn: Type.Integer(),
  fileSize: Type.Integer(),
  durationMs: Type.Integer(),
  warnings: Type.Array(Type.String()),
});
const ListItem = Type.Object({
  id: Type.String(),
  templateId: Type.String(),
  templateName: Type.String(),
  status: Type.String({
    description: 'pending (accepted, not finished: async renders and batch items), completed, or failed (see `error`)',
  }),
  fileSize: Type.Integer(),
  durationMs: Type.Integer(),
  expiresAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
  downloadUrl: Type.Union([Type.String(), Type.Null()]),
  batchId: Type.Optional(Type.String({ description: 'the batch this render is an item of' })),
  batchIndex: Type.Optional(Type.Integer({ description: 'its place in the batch, from 0' })),
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
const Options = Type.Object(
  {
    flatten: Type.Optional(Type.Boolean({ default: true })),
    locale: Type.Optional(Type.String({ default: 'fr-FR', maxLength: 64 })),
    timezone: Type.Optional(Type.String({ default: 'Europe/Paris', maxLength: 64 })),
    watermark: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('auto')], { default: 'auto' })),
    strict: Type.Optional(Type.Boolean({ default: false })),
    async: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Answer 202 at once with the render pending (also `Prefer: respond-async`); GET /v1/renders/:id and the render.completed / render.failed webhooks follow it',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RenderRequest = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 100 }),
    data: Type.Object(
      {},
      { additionalProperties: true, description: 'Values keyed by schema field name (or original PDF name)' },
    ),
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
);

/** RFC 7240: `Prefer: respond-async` (among other preferences, any case). */
function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.some((v) => v.split(',').some((p) => p.split(';')[0].trim().toLowerCase() === 'respond-async'));
}

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
          description:
            'Synchronous by default (201, completed). With `options.async: true` or `Prefer: respond-async`: 202 with the render `pending` and a `Location` to follow; its quota is reserved at once and released if it fails.',
          body: RenderRequest,
          response: {
            201: Type.Object({ data: RenderCreated }),
            202: Type.Object({ data: RenderCreated }),
            404: errorResponse(),
            422: errorResponse(),
            429: errorResponse(),
          },
        },
      },
      async (request, reply) => {
        const preferAsync = prefersAsync(request.headers.prefer);
        const body = preferAsync
          ? { ...request.body, options: { ...request.body.options, async: request.body.options?.async ?? true } }
          : request.body;
        if (preferAsync) reply.header('Vary', 'Prefer');
        return idempotent(
          deps,
          request,
          reply,
          'POST /v1/renders',
          // the preference changes the answer: part of what a key is bound to
          hashBody(`${preferAsync ? 'async:' : ''}${request.rawBody ?? ''}`),
          async () => {
            const data = await createRender(deps, { id: request.auth.accountId, plan: request.auth.plan }, body);
            if (data.status === 'pending') {
              reply.header('Location', `/v1/renders/${data.renderId}`);
              if (preferAsync) reply.header('Preference-Applied', 'respond-async');
              return { status: 202, body: { data } };
            }
            return { status: 201, body: { data } };
          },
          replayWithFreshLink(deps, request.auth.accountId),
        );
      },
    );

    app.get(
      '/renders',
      {
        schema: {
          tags: ['renders'],
          summary: 'List renders, newest first (every status unless `status` is given)',
          querystring: Type.Object(
            {
              page: Type.Integer({ minimum: 1, default: 1 }),
              limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
              templateId: Type.Optional(Type.String({ maxLength: 100 })),
              status: Type.Optional(
                Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]),
              ),
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
