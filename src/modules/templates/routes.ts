import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { attachmentDisposition } from '../../lib/content-disposition.js';
import type { Deps } from '../../deps.js';
import { CursorPageQuery } from '../../http/pagination.js';
import {
  dataResponse,
  errorResponse,
  IdempotencyHeaders,
  multipartBody,
  type Named,
  named,
  NoContent,
  pageResponse,
  ref,
  IdParams,
} from '../../http/openapi.js';
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
import { RenderOptions } from '../render-data/request-schemas.js';
import { headerJsonList } from '../../lib/header-json.js';
import { getTemplateFile } from './template-files.js';
import { previewTemplate } from './preview-template.js';

const Template = named(
  'Template',
  Type.Object(
    {
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
    },
    { description: 'A PDF form uploaded as a template' },
  ),
);
const Rect = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: '[x1, y1, x2, y2] in PDF points, origin at the bottom left of the page, x1 <= x2 and y1 <= y2',
});
const SchemaField = named(
  'SchemaField',
  Type.Object(
    {
      name: Type.String(),
      type: Type.Union(
        ['text', 'checkbox', 'radio', 'dropdown', 'date', 'number', 'signature'].map((t) => Type.Literal(t)),
      ),
      required: Type.Boolean({ description: "the PDF's Required flag, or the team's rule when set" }),
      description: Type.Optional(Type.String({ description: "the team's description of the field" })),
      default: Type.Optional(
        Type.Unknown({ description: 'drawn when render data omits the key (formatted like data): the team sets it' }),
      ),
      constant: Type.Optional(
        Type.Unknown({ description: 'always drawn; render data may not carry the field: the team sets it' }),
      ),
      hidden: Type.Optional(
        Type.Literal(true, {
          description: 'never drawn; data for it is ignored with a warning (refused in strict mode)',
        }),
      ),
      maxLength: Type.Optional(Type.Integer()),
      options: Type.Optional(Type.Array(Type.String())),
      optionLabels: Type.Optional(
        Type.Array(Type.String(), {
          description:
            'what a person reads for each option, parallel to options: the display text of a dropdown option, the words beside a radio button or check box state (the option itself when there is none)',
        }),
      ),
      label: Type.Union([Type.String(), Type.Null()], {
        description: "the field's tooltip (/TU), else the caption printed beside it on the page, null when neither",
      }),
      labelSource: Type.Union([Type.Literal('tooltip'), Type.Literal('page'), Type.Literal('none')], {
        description: 'where label came from',
      }),
      suggestedName: Type.String({
        description:
          'a readable key made from the label (else the PDF name): lower snake_case ASCII, at most 40 characters, unique in the template',
      }),
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
    },
    { description: 'A form field: the key to send in render data and the value it expects' },
  ),
);
const Removal = named(
  'OutputRemoval',
  Type.Object(
    {
      feature: Type.String({
        description: 'xfa, usage-rights, javascript, launch-actions, submit-actions, embedded-files or uri-links',
      }),
      description: Type.String(),
    },
    { description: 'a feature of the template that rendered PDFs leave out, and why' },
  ),
);
const MappedField = Type.Object({
  key: Type.String({ description: 'the render key in the new version (for removed fields: the key it had)' }),
  originalName: Type.String(),
});
const FieldMapping = named(
  'FieldMapping',
  Type.Object(
    {
      kept: Type.Array(MappedField, { description: 'same PDF name' }),
      renamedInPdf: Type.Array(
        Type.Object({
          key: Type.String(),
          originalName: Type.String(),
          from: Type.String({ description: 'the PDF name in the previous file' }),
          by: Type.String({
            description:
              'label (same label and type), name-part (same last name part, nearby) or place (overlapping box)',
          }),
        }),
      ),
      added: Type.Array(MappedField, { description: 'fields new in this file' }),
      removed: Type.Array(MappedField, { description: 'fields of the previous file with no counterpart' }),
      dropped: Type.Array(
        Type.Object({ key: Type.String(), originalName: Type.String(), setting: Type.String(), reason: Type.String() }),
        { description: 'settings of kept fields that the new field could not take' },
      ),
    },
    {
      description:
        "How a new file's fields map to the previous file's: mapped fields keep their key, default and rules",
    },
  ),
);
const TemplateSchema = named(
  'TemplateSchema',
  Type.Object(
    {
      templateId: Type.String(),
      templateName: Type.String(),
      version: Type.Integer(),
      schema: Type.Object({
        fields: Type.Array(ref(SchemaField)),
        pageCount: Type.Integer(),
        removedFromOutput: Type.Array(ref(Removal)),
        fieldMapping: Type.Union([ref(FieldMapping), Type.Null()], {
          description:
            "the latest file replacement's mapping to the previous file; null when the file was never replaced",
        }),
      }),
    },
    { description: 'The fields of a template, to build render data from' },
  ),
);
const TemplatePatch = named(
  'TemplatePatch',
  Type.Object(
    {
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      isFrozen: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false, description: 'The properties to change; the others keep their value' },
  ),
);
const RenderDataJsonSchema = named(
  'TemplateJsonSchema',
  Type.Object(
    {
      templateId: Type.String(),
      templateName: Type.String(),
      version: Type.Integer({ description: 'the template version the schema describes' }),
      schema: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description:
          "a JSON Schema (draft 2020-12) of render `data`: properties keyed by field name, title from the field's " +
          'label, additionalProperties false; it mirrors strict-mode validation (README: "JSON Schema of render data")',
      }),
    },
    { description: 'The render data of one template version as a JSON Schema' },
  ),
);
const TemplateJsonSchemaResponse = dataResponse(RenderDataJsonSchema);
const TemplateUpload = named(
  'TemplateUpload',
  Type.Object(
    {
      file: Type.String({ format: 'binary', description: 'The AcroForm PDF (plan limit: 10/25/50 MB)' }),
      name: Type.Optional(Type.String({ maxLength: 200, description: 'Template name (default: the file name)' })),
      description: Type.Optional(Type.String({ maxLength: 2000 })),
    },
    { description: 'A PDF form upload (multipart/form-data)' },
  ),
);
const PreviewRequest = named(
  'PreviewRequest',
  Type.Object(
    {
      data: Type.Object(
        {},
        { additionalProperties: true, description: 'Values keyed by schema field name (or original PDF name)' },
      ),
      options: Type.Optional(ref(RenderOptions)),
    },
    { additionalProperties: false, description: 'The data and options of a render, for a preview' },
  ),
);
const TemplateResponse = dataResponse(Template);
const TemplateReplaced = named(
  'TemplateReplaced',
  Type.Intersect([ref(Template), Type.Object({ fieldMapping: ref(FieldMapping) })], {
    description: 'The template after a file replacement, with how the new fields map to the old',
  }),
);
const TemplateReplacedResponse = dataResponse(TemplateReplaced);
const TemplateList = pageResponse(Template);
export const TemplateSchemaResponse = dataResponse(TemplateSchema);

/** Named schemas of this module (app.ts registers them; they are #/components/schemas/<name>). */
export const templateComponents: Named[] = [
  Template,
  SchemaField,
  Removal,
  FieldMapping,
  TemplateSchema,
  TemplatePatch,
  TemplateUpload,
  TemplateResponse,
  TemplateReplaced,
  TemplateReplacedResponse,
  TemplateList,
  TemplateSchemaResponse,
  RenderDataJsonSchema,
  TemplateJsonSchemaResponse,
  PreviewRequest,
];
/** A PDF answer: the OpenAPI document lists it as application/pdf (`produces`). */
const PdfBody = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The PDF' });

export const templateRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await app.register(multipart, { throwFileSizeLimit: true });

    app.post(
      '/templates',
      {
        schema: {
          tags: ['templates'],
          operationId: 'createTemplate',
          ...multipartBody(TemplateUpload),
          summary: 'Upload a PDF form as a template; its fields are analysed at once',
          headers: IdempotencyHeaders,
          response: {
            201: ref(TemplateResponse, 'The template, with its fields analysed'),
            403: errorResponse('TEMPLATE_LIMIT_REACHED: the plan holds no more templates'),
            409: errorResponse('IDEMPOTENCY_KEY_IN_USE: a request with this key is still running'),
            413: errorResponse('FILE_TOO_LARGE: the file exceeds the plan limit'),
            422: errorResponse('INVALID_PDF (not a PDF form), VALIDATION_ERROR or IDEMPOTENCY_KEY_REUSED'),
          },
        },
      },
      async (request, reply) => {
        const plan = deps.plans[request.auth.plan];
        const upload = await readUpload(request, plan.maxUploadBytes, plan.name);
        const bodyHash = () => hashBody(upload.bytes, upload.fileName, JSON.stringify(upload.fields));
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
          operationId: 'listTemplates',
          summary: 'List templates, newest first',
          querystring: CursorPageQuery,
          response: {
            200: ref(TemplateList, 'A page of templates (without their description)'),
            422: errorResponse(),
          },
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
          operationId: 'getTemplate',
          summary: 'Get a template',
          params: IdParams,
          response: { 200: ref(TemplateResponse, 'The template'), 404: errorResponse('TEMPLATE_NOT_FOUND') },
        },
      },
      async (request) => ({ data: await getTemplate(deps, request.auth.accountId, request.params.id) }),
    );

    app.get(
      '/templates/:id/schema',
      {
        schema: {
          tags: ['templates'],
          operationId: 'getTemplateSchema',
          summary: 'The fields to send in render data',
          params: IdParams,
          response: {
            200: ref(TemplateSchemaResponse, 'The fields of the template'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
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
          operationId: 'getTemplateJsonSchema',
          summary: 'The render data of the current version as a JSON Schema (draft 2020-12)',
          params: IdParams,
          response: {
            200: ref(TemplateJsonSchemaResponse, 'A JSON Schema of render data'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
          },
        },
      },
      async (request) => ({ data: await getTemplateJsonSchema(deps, request.auth.accountId, request.params.id) }),
    );

    app.get(
      '/templates/:id/file',
      {
        schema: {
          tags: ['templates'],
          operationId: 'getTemplateFile',
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
          operationId: 'previewTemplate',
          summary: 'Fill the template and answer the PDF itself, watermarked PREVIEW: not stored, not counted',
          produces: ['application/pdf'],
          description:
            'Takes the `data` and `options` of POST /renders and validates them the same way (the same ' +
            'VALIDATION_ERROR answers). The answer is the filled PDF (application/pdf), always watermarked ' +
            '"PREVIEW"; nothing is stored and the monthly render quota is not used (the per-key request rate ' +
            'limit applies). Render warnings come in the `Formcast-Warnings` header as a JSON array of ' +
            'strings (non-ASCII characters escaped as \\uXXXX).',
          params: IdParams,
          body: ref(PreviewRequest),
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
          operationId: 'updateTemplate',
          summary: 'Rename, describe, freeze or unfreeze a template',
          params: IdParams,
          body: ref(TemplatePatch),
          response: {
            200: ref(TemplateResponse, 'The updated template'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('TEMPLATE_FROZEN: a frozen template only accepts isFrozen: false'),
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
          operationId: 'replaceTemplateFile',
          ...multipartBody(TemplateUpload),
          summary: 'Replace the PDF: schema re-extracted, version + 1; the fields it maps keep their keys and rules',
          params: IdParams,
          response: {
            200: ref(TemplateReplacedResponse, 'The template, version + 1, with the field mapping'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('TEMPLATE_FROZEN'),
            413: errorResponse('FILE_TOO_LARGE: the file exceeds the plan limit'),
            422: errorResponse('INVALID_PDF: not a PDF form'),
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
          operationId: 'deleteTemplate',
          summary: 'Delete a template (irreversible)',
          params: IdParams,
          response: {
            204: NoContent,
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('TEMPLATE_FROZEN: unfreeze it first'),
          },
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
