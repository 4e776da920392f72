import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import type { Deps } from '../../deps.js';
import { CursorPageQuery, errorResponse, PageMeta } from '../../http/pagination.js';
import { createTemplate } from './create-template.js';
import {
  deleteTemplate,
  getTemplate,
  getTemplateJsonSchema,
  getTemplateSchema,
  listTemplates,
  replaceTemplateFile,
  updateTemplate,
} from './manage-templates.js';
import { readUpload } from './read-upload.js';
import { hashBody, idempotent } from '../../http/idempotency.js';

const TemplateSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  fileName: Type.String(),
  fileSize: Type.Integer(),
  fieldCount: Type.Integer(),
  isFrozen: Type.Boolean(),
  version: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const Rect = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: '[x1, y1, x2, y2] in PDF points, origin at the bottom left of the page, x1 <= x2 and y1 <= y2',
});
const SchemaField = Type.Object({
  name: Type.String(),
  type: Type.Union(
    ['text', 'checkbox', 'radio', 'dropdown', 'date', 'number', 'signature'].map((t) => Type.Literal(t)),
  ),
  required: Type.Boolean(),
  maxLength: Type.Optional(Type.Integer()),
  options: Type.Optional(Type.Array(Type.String())),
  label: Type.Union([Type.String(), Type.Null()], { description: "the field's tooltip (/TU), null when it has none" }),
  pdfMeta: Type.Object({
    originalName: Type.String(),
    page: Type.Integer({ description: "1-based page of the field's first widget" }),
    readOnly: Type.Optional(Type.Boolean()),
    rect: Rect,
    widgets: Type.Optional(
      Type.Array(Type.Object({ page: Type.Integer(), rect: Rect }), {
        description: 'every widget of the field in order (the first is page + rect): only when it has several',
      }),
    ),
    editable: Type.Optional(
      Type.Literal(true, { description: 'combo boxes with the Edit flag only: any text is accepted' }),
    ),
  }),
});
const RenderDataJsonSchema = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description:
    "a JSON Schema (draft 2020-12) of render `data`: properties keyed by field name, title from the field's " +
    'label, additionalProperties false; it mirrors strict-mode validation (README: "JSON Schema of render data")',
});
const Removal = Type.Object(
  {
    feature: Type.String({
      description: 'xfa, usage-rights, javascript, launch-actions, submit-actions, embedded-files or uri-links',
    }),
    description: Type.String(),
  },
  { description: 'a feature of the template that rendered PDFs leave out, and why' },
);
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const templateRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(multipart, { throwFileSizeLimit: true });

    app.post(
      '/templates',
      {
        schema: {
          tags: ['templates'],
          summary: 'Upload a PDF form as a template; its fields are analysed at once',
          response: {
            201: Type.Object({ data: TemplateSchema }),
            403: errorResponse(),
            413: errorResponse(),
            422: errorResponse(),
          },
        },
      },
      async (request, reply) => {
        const plan = deps.plans[request.auth.plan];
        const upload = await readUpload(request, plan.maxUploadBytes, plan.name);
        const bodyHash = hashBody(upload.bytes, upload.fileName, JSON.stringify(upload.fields));
        return idempotent(deps, request, reply, 'POST /v1/templates', bodyHash, async () => ({
          status: 201,
          body: {
            data: await createTemplate(
              deps,
              { id: request.auth.accountId, plan: request.auth.plan },
              {
                bytes: upload.bytes,
                fileName: upload.fileName,
                name: upload.fields.name,
                description: upload.fields.description,
              },
            ),
          },
        }));
      },
    );

    app.get(
      '/templates',
      {
        schema: {
          tags: ['templates'],
          summary: 'List templates, newest first',
          querystring: CursorPageQuery,
          response: { 200: Type.Object({ data: Type.Array(TemplateSchema), meta: PageMeta }), 422: errorResponse() },
        },
      },
      async (request) =>
        listTemplates(
          deps,
          request.auth.accountId,
          request.query.page,
          request.query.limit,
          request.query.starting_after,
        ),
    );

    app.get(
      '/templates/:id',
      {
        schema: {
          tags: ['templates'],
          summary: 'Get a template',
          params: IdParams,
          response: { 200: Type.Object({ data: TemplateSchema }), 404: errorResponse() },
        },
      },
      async (request) => ({ data: await getTemplate(deps, request.auth.accountId, request.params.id) }),
    );

    app.get(
      '/templates/:id/schema',
      {
        schema: {
          tags: ['templates'],
          summary: 'The fields to send in render data',
          params: IdParams,
          response: {
            200: Type.Object({
              data: Type.Object({
                templateId: Type.String(),
                templateName: Type.String(),
                version: Type.Integer(),
                schema: Type.Object({
                  fields: Type.Array(SchemaField),
                  pageCount: Type.Integer(),
                  removedFromOutput: Type.Array(Removal),
                }),
              }),
            }),
            404: errorResponse(),
          },
        },
      },
      async (request) => ({ data: await getTemplateSchema(deps, request.auth.accountId, request.params.id) }),
    );

    app.get(
      '/templates/:id/json-schema',
      {
        schema: {
          tags: ['templates'],
          summary: 'The render data of the current version as a JSON Schema (draft 2020-12)',
          params: IdParams,
          response: {
            200: Type.Object({
              data: Type.Object({
                templateId: Type.String(),
                templateName: Type.String(),
                version: Type.Integer({ description: 'the template version the schema describes' }),
                schema: RenderDataJsonSchema,
              }),
            }),
            404: errorResponse(),
          },
        },
      },
      async (request) => ({ data: await getTemplateJsonSchema(deps, request.auth.accountId, request.params.id) }),
    );

    app.patch(
      '/templates/:id',
      {
        schema: {
          tags: ['templates'],
          summary: 'Rename, describe, freeze or unfreeze a template',
          params: IdParams,
          body: Type.Object(
            {
              name: Type.Optional(Type.String()),
              description: Type.Optional(Type.String()),
              isFrozen: Type.Optional(Type.Boolean()),
            },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object({ data: TemplateSchema }),
            404: errorResponse(),
            409: errorResponse(),
            422: errorResponse(),
          },
        },
      },
      async (request) => ({
        data: await updateTemplate(deps, request.auth.accountId, request.params.id, request.body),
      }),
    );

    app.put(
      '/templates/:id/file',
      {
        schema: {
          tags: ['templates'],
          summary: 'Replace the PDF: schema re-extracted, version + 1',
          params: IdParams,
          response: {
            200: Type.Object({ data: TemplateSchema }),
            404: errorResponse(),
            409: errorResponse(),
            413: errorResponse(),
            422: errorResponse(),
          },
        },
      },
      async (request) => {
        const plan = deps.plans[request.auth.plan];
        const upload = await readUpload(request, plan.maxUploadBytes, plan.name);
        return {
          data: await replaceTemplateFile(
            deps,
            { id: request.auth.accountId, plan: request.auth.plan },
            request.params.id,
            upload,
          ),
        };
      },
    );

    app.delete(
      '/templates/:id',
      {
        schema: {
          tags: ['templates'],
          summary: 'Delete a template (irreversible)',
          params: IdParams,
          response: { 204: Type.Null(), 404: errorResponse(), 409: errorResponse() },
        },
      },
      async (request, reply) => {
        await deleteTemplate(deps, request.auth.accountId, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
