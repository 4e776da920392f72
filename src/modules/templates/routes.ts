import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { attachmentDisposition } from '../../lib/content-disposition.js';
import type { Deps } from '../../deps.js';
import { CursorPageQuery, errorResponse, PageMeta } from '../../http/pagination.js';
import { createTemplate } from './create-template.js';
import {
  deleteTemplate,
  getTemplate,
  getTemplateSchema,
  listTemplates,
  replaceTemplateFile,
  updateTemplate,
} from './manage-templates.js';
import { readUpload } from './read-upload.js';
import { hashBody, idempotent } from '../../http/idempotency.js';
import { Options as RenderOptions } from '../renders/routes.js';
import { headerJsonList } from '../../lib/header-json.js';
import { getTemplateFile } from './template-file.js';
import { previewTemplate } from './preview-template.js';

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
const SchemaField = Type.Object({
  name: Type.String(),
  type: Type.Union(
    ['text', 'checkbox', 'radio', 'dropdown', 'date', 'number', 'signature'].map((t) => Type.Literal(t)),
  ),
  required: Type.Boolean(),
  maxLength: Type.Optional(Type.Integer()),
  options: Type.Optional(Type.Array(Type.String())),
  pdfMeta: Type.Object({ originalName: Type.String(), page: Type.Integer(), readOnly: Type.Optional(Type.Boolean()) }),
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
/** A PDF answer: the OpenAPI document lists it as application/pdf (`produces`). */
const PdfBody = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The PDF' });
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
      '/templates/:id/file',
      {
        schema: {
          tags: ['templates'],
          summary: "The template's current PDF, as uploaded",
          produces: ['application/pdf'],
          params: IdParams,
          response: {
            200: PdfBody,
            404: errorResponse(),
          },
        },
      },
      async (request, reply) => {
        const file = await getTemplateFile(deps, request.auth.accountId, request.params.id);
        return reply
          .type('application/pdf')
          .header('Content-Disposition', inlineDisposition(file.fileName))
          .header('Cache-Control', 'private, no-cache')
          .header('Formcast-Template-Version', String(file.version))
          .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
      },
    );

    app.post(
      '/templates/:id/preview',
      {
        schema: {
          tags: ['templates'],
          summary: 'Fill the template and answer the PDF itself, watermarked PREVIEW: not stored, not counted',
          produces: ['application/pdf'],
          description:
            'Takes the `data` and `options` of POST /renders and validates them the same way (the same ' +
            'VALIDATION_ERROR answers). The answer is the filled PDF (application/pdf), always watermarked ' +
            '"PREVIEW"; nothing is stored and the monthly render quota is not used (the per-key request rate ' +
            'limit applies). Render warnings come in the `Formcast-Warnings` header as a JSON array of ' +
            'strings (non-ASCII characters escaped as \\uXXXX).',
          params: IdParams,
          body: Type.Object(
            {
              data: Type.Object(
                {},
                { additionalProperties: true, description: 'Values keyed by schema field name (or original PDF name)' },
              ),
              options: Type.Optional(RenderOptions),
            },
            { additionalProperties: false },
          ),
          response: {
            200: PdfBody,
            404: errorResponse(),
            422: errorResponse(),
            429: errorResponse(),
          },
        },
      },
      async (request, reply) => {
        const preview = await previewTemplate(deps, request.auth.accountId, request.params.id, request.body);
        return reply
          .type('application/pdf')
          .header('Cache-Control', 'no-store')
          .header('Formcast-Warnings', headerJsonList(preview.warnings))
          .send(Buffer.concat(preview.chunks));
      },
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

function inlineDisposition(fileName: string): string {
  return attachmentDisposition(fileName).replace(/^attachment/, 'inline');
}
