import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import {
  dataResponse,
  errorResponse,
  IdempotencyHeaders,
  type Named,
  named,
  ref,
  IdParams,
} from '../../http/openapi.js';
import { hashJsonBody, idempotent } from '../../http/idempotency.js';
import { RenderRequest } from '../render-data/request-schemas.js';
import { createBatch } from './create-batch.js';
import { getBatch } from './get-batch.js';

export const Batch = named(
  'RenderBatch',
  Type.Object(
    {
      id: Type.String(),
      status: Type.String({ description: 'pending (items running, or the combined file being built) or completed' }),
      combine: Type.Boolean(),
      signed: Type.Boolean({ description: 'the combined PDF is signed once as a whole (batch `sign` with `combine`)' }),
      progress: Type.Object({
        total: Type.Integer(),
        pending: Type.Integer(),
        completed: Type.Integer(),
        failed: Type.Integer(),
      }),
      createdAt: Type.String({ format: 'date-time' }),
      completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      expiresAt: Type.String({ format: 'date-time' }),
      combineError: Type.Union([Type.String(), Type.Null()], {
        description: 'why the combined PDF could not be built, when it could not',
      }),
      combinedDownloadUrl: Type.Union([Type.String(), Type.Null()], {
        description:
          'once completed, with `combine`: one PDF of every completed item in order (signed, like downloadUrl)',
      }),
      zipDownloadUrl: Type.Union([Type.String(), Type.Null()], {
        description: "once completed: a ZIP of every completed item's PDF (signed, like downloadUrl)",
      }),
      expiresIn: Type.Integer({ description: 'validity of the links, seconds (0 when there is none)' }),
      items: Type.Array(
        Type.Object({
          index: Type.Integer(),
          renderId: Type.String(),
          status: Type.String(),
          error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
        }),
      ),
    },
    {
      description: 'A batch of renders and its progress; once completed, links to its files',
      // a finished batch whose second item was refused by its template (the first was still rendered)
      examples: [
        {
          id: 'bat_01a21680738b60de6c07f420',
          status: 'completed',
          combine: true,
          signed: false,
          progress: { total: 2, pending: 0, completed: 1, failed: 1 },
          createdAt: '2026-11-26T06:30:00.000Z',
          completedAt: '2026-11-26T06:30:02.000Z',
          expiresAt: '2026-12-03T06:30:00.000Z',
          combineError: null,
          combinedDownloadUrl:
            'https://forms.example.com/v1/files/bat_01a21680738b60de6c07f420.pdf?expires=1795672500&signature=5d1e3c7a9b0f2e4d6c8a1b3f5e7d9c0b2a4f6e8d0c1b3a5f7e9d2c4b6a8f0e1d',
          zipDownloadUrl:
            'https://forms.example.com/v1/files/bat_01a21680738b60de6c07f420.zip?expires=1795672500&signature=8a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c',
          expiresIn: 900,
          items: [
            { index: 0, renderId: 'rnd_01a21680738b60de6c07f421', status: 'completed', error: null },
            {
              index: 1,
              renderId: 'rnd_01a21680738b60de6c07f422',
              status: 'failed',
              error: {
                code: 'VALIDATION_ERROR',
                message:
                  'Invalid value for "signed_on": expected a date (ISO 8601 or the locale\'s short format), received "soon"',
              },
            },
          ],
        },
      ],
    },
  ),
);
const BatchRequest = named(
  'RenderBatchRequest',
  Type.Object(
    {
      items: Type.Array(ref(RenderRequest), {
        minItems: 1,
        description: 'at most MAX_BATCH_ITEMS items (1,000 by default); templates may differ',
      }),
      combine: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            "also build one PDF of every completed item, in order; refused (VALIDATION_ERROR, field `combine`) when the templates' sizes times the items exceed what a render worker may hold (RENDER_MEMORY_MB)",
        }),
      ),
      sign: Type.Optional(
        Type.Union([Type.Boolean(), Type.String({ minLength: 1, maxLength: 64 })], {
          description:
            "sign every item that does not set its own `options.sign` (true: the account's default certificate, or a certificate id), and the combined PDF once as a whole; the items' own signatures are left out of the combined PDF (they sign other files)",
        }),
      ),
    },
    {
      additionalProperties: false,
      examples: [
        {
          items: [
            {
              templateId: 'tpl_01a21680738b60de6c07f401',
              data: { name: 'Jeanne Martin', amount: 1250.5, signed_on: '2026-11-26' },
            },
            {
              templateId: 'tpl_01a21680738b60de6c07f401',
              data: { name: 'Karim Benali', amount: 980, signed_on: '2026-11-26' },
              options: { locale: 'en-US' },
            },
          ],
          combine: true,
        },
      ],
    },
  ),
);
const BatchResponse = dataResponse(Batch);

/** Named schemas of this module (app.ts registers them; they are #/components/schemas/<name>). */
export const batchComponents: Named[] = [Batch, BatchRequest, BatchResponse];

export const batchRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/renders/batch',
      {
        schema: {
          tags: ['renders'],
          operationId: 'createRenderBatch',
          summary: 'Render up to MAX_BATCH_ITEMS items in the background, all or nothing',
          description:
            "Every item is validated first (a bad item refuses the batch: its index is in the error) and the whole batch's quota is reserved at once, or RENDER_LIMIT_REACHED and nothing is reserved. Each item becomes a normal render (GET /v1/renders/:id) running at background priority. `combine: true` also builds one PDF of every completed item in order.",
          headers: IdempotencyHeaders,
          body: ref(BatchRequest),
          response: {
            202: ref(BatchResponse, 'The batch, accepted: its items are pending'),
            404: errorResponse('TEMPLATE_NOT_FOUND (the item index is in details)'),
            422: errorResponse(
              'VALIDATION_ERROR: an item is invalid (its index is in details) or the batch is too big',
            ),
            429: errorResponse(
              'RENDER_LIMIT_REACHED: the whole batch does not fit in the monthly quota; or RATE_LIMITED',
            ),
          },
        },
      },
      async (request, reply) =>
        idempotent(
          deps,
          request,
          reply,
          'POST /v1/renders/batch',
          () => hashJsonBody(request.rawBody),
          async () => {
            const { accountId: id, plan, renderDefaults } = request.auth;
            const data = await createBatch(deps, { id, plan, renderDefaults }, request.body);
            reply.header('Location', `/v1/render-batches/${data.id}`);
            return { status: 202, body: { data } };
          },
        ),
    );

    app.get(
      '/render-batches/:id',
      {
        schema: {
          tags: ['renders'],
          operationId: 'getRenderBatch',
          description:
            "A batch's progress (items pending, completed, failed), each item's render id and error, and once completed freshly signed links to the combined PDF (with `combine`) and a ZIP of every completed item. render-batch.completed reports the end. Another account's batch is 404 BATCH_NOT_FOUND.",
          summary: 'Get a batch: progress, per-item results and, once completed, its download links',
          params: IdParams,
          response: { 200: ref(BatchResponse, 'The batch'), 404: errorResponse('BATCH_NOT_FOUND') },
        },
      },
      async (request) => ({ data: await getBatch(deps, request.auth.accountId, request.params.id) }),
    );
  };
