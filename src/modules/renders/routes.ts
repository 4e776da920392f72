import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import {
  dataResponse,
  errorResponse,
  multipartBody,
  stringEnum,
  IdempotencyHeaders,
  type Named,
  named,
  NoContent,
  pageResponse,
  ref,
  IdParams,
} from '../../http/openapi.js';
import { CursorPageQuery } from '../../http/pagination.js';
import { hashJsonBody, idempotent, type ReplayCodec } from '../../http/idempotency.js';
import { createRender } from './create-render.js';
import { deleteRender, getRender, listRenders } from './manage-renders.js';
import { RenderOptions, RenderRequest } from '../render-data/request-schemas.js';
import { readUpload } from '../templates/read-upload.js';
import { verifyRenderFile } from './verify-render-file.js';

const Render = named(
  'Render',
  Type.Object(
    {
      id: Type.String({ description: 'The render id, as GET /v1/renders/{id} and the render list name it' }),
      renderId: Type.String({ description: 'The same id, under the name the reference gives it at creation' }),
      status: Type.String({
        description:
          'completed (201), or pending (202: accepted asynchronously); a failed render is an error answer, not a Render',
      }),
      downloadUrl: Type.Union([Type.String(), Type.Null()], {
        description: 'Signed link to the PDF (no Authorization header needed); null while pending',
      }),
      expiresIn: Type.Integer({ description: 'Seconds the link stays valid (900); 0 while pending' }),
      fileSize: Type.Integer(),
      durationMs: Type.Integer(),
      sha256: Type.Optional(
        Type.String({
          description: 'SHA-256 of the file (hex), which POST /v1/renders/verify recognises; absent while pending',
        }),
      ),
      warnings: Type.Array(Type.String(), { description: 'e.g. data keys that match no field; empty when none' }),
    },
    {
      description: 'A render just made, or accepted asynchronously',
      examples: [
        {
          id: 'rnd_01a21680738b60de6c07f402',
          renderId: 'rnd_01a21680738b60de6c07f402',
          status: 'completed',
          downloadUrl:
            'https://forms.example.com/v1/files/rnd_01a21680738b60de6c07f402?expires=1795671300&signature=3f1c0e9a5b7d4e2f8a6c1b0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f',
          expiresIn: 900,
          fileSize: 48213,
          durationMs: 182,
          sha256: '9b2e4c1f0a3d5e7b8c6a4f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c',
          warnings: [],
        },
      ],
    },
  ),
);
/** A completed render as the API shows it: the example of the render schemas and of its events. */
export const RENDER_EXAMPLE = {
  id: 'rnd_01a21680738b60de6c07f402',
  templateId: 'tpl_01a21680738b60de6c07f401',
  templateName: 'W-9 (2024)',
  status: 'completed',
  fileSize: 48213,
  durationMs: 182,
  expiresAt: '2026-12-03T06:15:00.000Z',
  createdAt: '2026-11-26T06:15:00.000Z',
  downloadUrl:
    'https://forms.example.com/v1/files/rnd_01a21680738b60de6c07f402?expires=1795671300&signature=3f1c0e9a5b7d4e2f8a6c1b0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f',
  sha256: '9b2e4c1f0a3d5e7b8c6a4f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c',
  protected: false,
  signed: false,
};

const RenderListItem = named(
  'RenderListItem',
  Type.Object(
    {
      id: Type.String(),
      templateId: Type.String(),
      templateName: Type.String(),
      status: Type.String({
        description:
          'pending (accepted, not finished: async renders and batch items), completed, or failed (see `error`)',
      }),
      fileSize: Type.Integer(),
      durationMs: Type.Integer(),
      expiresAt: Type.String({ format: 'date-time' }),
      createdAt: Type.String({ format: 'date-time' }),
      downloadUrl: Type.Union([Type.String(), Type.Null()], { description: 'null when there is no file to download' }),
      sha256: Type.Union([Type.String(), Type.Null()], {
        description:
          'SHA-256 of the file (hex); null while pending, for a failed render, or one made before it was recorded',
      }),
      protected: Type.Boolean({
        description: 'the file is password-protected (options.protect); passwords are never kept',
      }),
      signed: Type.Boolean({ description: 'the file is signed (options.sign)' }),
      batchId: Type.Optional(Type.String({ description: 'the batch this render is an item of' })),
      batchIndex: Type.Optional(Type.Integer({ description: 'its place in the batch, from 0' })),
    },
    {
      examples: [RENDER_EXAMPLE],
    },
  ),
);
export const RenderDetail = named(
  'RenderDetail',
  Type.Intersect(
    [
      ref(RenderListItem),
      Type.Object({
        expiresIn: Type.Integer(),
        warnings: Type.Array(Type.String()),
        templateVersion: Type.Integer(),
        error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
      }),
    ],
    { description: 'A render with a freshly signed download link' },
  ),
);
const RenderVerifyUpload = named(
  'RenderVerifyUpload',
  Type.Object({ file: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The PDF' }) }),
);
const RenderVerification = named(
  'RenderVerification',
  Type.Object({
    result: stringEnum(['verified', 'modified', 'unknown'] as const, {
      description:
        "verified: exactly a render's file; modified: a render's file with revisions added after it; unknown: not a file of this account's renders, or changed in place",
    }),
    sha256: Type.String({ description: "the uploaded file's SHA-256 (hex)" }),
    message: Type.String(),
    render: Type.Union([ref(RenderListItem), Type.Null()], {
      description: 'the render (downloadUrl null once it is deleted or expired); null when unknown',
    }),
  }),
);
const RenderVerificationResponse = dataResponse(RenderVerification);
const RenderResponse = dataResponse(Render);
const RenderDetailResponse = dataResponse(RenderDetail);
const RenderList = pageResponse(RenderListItem, 'RenderList');

/** Named schemas of this module (app.ts registers them; they are #/components/schemas/<name>). */
export const renderComponents: Named[] = [
  Render,
  RenderListItem,
  RenderDetail,
  RenderOptions,
  RenderRequest,
  RenderResponse,
  RenderDetailResponse,
  RenderList,
  RenderVerifyUpload,
  RenderVerification,
  RenderVerificationResponse,
];

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
      // answers stored before `id` joined `renderId` get it too
      return { data: { ...data, id: data.renderId, downloadUrl: fresh.downloadUrl, expiresIn: fresh.expiresIn } };
    },
  };
}

export const renderRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(multipart, { throwFileSizeLimit: true });

    app.post(
      '/renders',
      {
        schema: {
          tags: ['renders'],
          operationId: 'createRender',
          summary: 'Fill a template with data and get a download link',
          description:
            'Synchronous by default (201, completed). With `options.async: true` or `Prefer: respond-async`: 202 with the render `pending` and a `Location` to follow; its quota is reserved at once and released if it fails.',
          headers: IdempotencyHeaders,
          body: ref(RenderRequest),
          response: {
            201: ref(RenderResponse, 'The render and its download link'),
            202: ref(RenderResponse, 'The render accepted asynchronously, pending'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('IDEMPOTENCY_KEY_IN_USE: a request with this key is still running'),
            422: errorResponse(
              'VALIDATION_ERROR (details: field, expected, received), RENDER_FAILED or IDEMPOTENCY_KEY_REUSED',
            ),
            429: errorResponse(
              'RENDER_LIMIT_REACHED: the monthly quota is used (Retry-After: seconds to the next month), ' +
                'or RATE_LIMITED (Retry-After: seconds to the next minute)',
            ),
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
          () => hashJsonBody(request.rawBody, preferAsync ? 'async:' : ''),
          async () => {
            const { accountId: id, plan, renderDefaults } = request.auth;
            const data = await createRender(deps, { id, plan, renderDefaults }, body);
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
          operationId: 'listRenders',
          description:
            "The account's renders, newest first, every status unless `status` is given, optionally only those of `templateId`. Items carry a freshly signed `downloadUrl` when the file is still kept. Paged with `page`/`limit` or `starting_after` (see `meta.nextCursor`).",
          summary: 'List renders, newest first (every status unless `status` is given)',
          querystring: Type.Object(
            {
              ...CursorPageQuery.properties,
              templateId: Type.Optional(Type.String({ maxLength: 100 })),
              status: Type.Optional(
                Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]),
              ),
            },
            { additionalProperties: false },
          ),
          response: { 200: ref(RenderList, 'A page of renders'), 422: errorResponse() },
        },
      },
      async (request) => {
        const { starting_after, ...filter } = request.query;
        return listRenders(deps, request.auth.accountId, { ...filter, startingAfter: starting_after });
      },
    );

    app.get(
      '/renders/:id',
      {
        schema: {
          tags: ['renders'],
          operationId: 'getRender',
          description:
            'One render with a freshly signed `downloadUrl` (valid `expiresIn` seconds) while its file is kept, its warnings, the template version it used and, when failed, its error. Poll it to follow an asynchronous render, or listen for render.completed / render.failed. A render past its retention is 404 RENDER_NOT_FOUND.',
          summary: 'Get a render with a freshly signed download link',
          params: IdParams,
          response: { 200: ref(RenderDetailResponse, 'The render'), 404: errorResponse('RENDER_NOT_FOUND') },
        },
      },
      async (request) => ({ data: await getRender(deps, request.auth.accountId, request.params.id) }),
    );

    app.delete(
      '/renders/:id',
      {
        schema: {
          tags: ['renders'],
          operationId: 'deleteRender',
          description:
            "Deletes the render's PDF at once; the render then answers 404 and its links stop working. A render still pending cannot be deleted yet (409 CONFLICT).",
          summary: 'Delete a render and its file at once',
          params: IdParams,
          response: {
            204: NoContent,
            404: errorResponse('RENDER_NOT_FOUND'),
            409: errorResponse('CONFLICT: the render is still pending'),
          },
        },
      },
      async (request, reply) => {
        await deleteRender(deps, request.auth.accountId, request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/renders/verify',
      {
        schema: {
          tags: ['renders'],
          operationId: 'verifyRender',
          description:
            "Upload a PDF (multipart `file`): `result` says whether it is exactly a file this account rendered (verified, matched on its SHA-256), such a file with revisions appended after it (modified), or neither (unknown), with the render when one matches. Not charged, not counted; a file over the plan's upload limit is 413 FILE_TOO_LARGE.",
          ...multipartBody(RenderVerifyUpload),
          summary: 'Which render of this account made this PDF, if any (not charged)',
          response: {
            200: ref(RenderVerificationResponse, 'The verdict, with the render when one matches'),
            400: errorResponse('BAD_REQUEST: no "file" part'),
            413: errorResponse('FILE_TOO_LARGE: the file exceeds the plan upload limit'),
          },
        },
      },
      async (request) => {
        const plan = deps.plans[request.auth.plan];
        const upload = await readUpload(request, plan.maxUploadBytes, plan.name);
        return { data: await verifyRenderFile(deps, request.auth.accountId, upload.bytes) };
      },
    );
  };
