import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { attachmentDisposition } from '../../lib/content-disposition.js';
import type { Deps } from '../../deps.js';
import { CursorPageQuery } from '../../http/pagination.js';
import { errorResponse, IdempotencyHeaders, multipartBody, NoContent, ref, IdParams } from '../../http/openapi.js';
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
import { headerJsonList } from '../../lib/header-json.js';
import { getTemplateFile } from './template-files.js';
import { previewTemplate } from './preview-template.js';
import {
  PreviewRequest,
  TemplateJsonSchemaResponse,
  TemplateList,
  TemplatePatch,
  TemplateCreatedResponse,
  TemplateReplacedResponse,
  TemplateResponse,
  TemplateSchemaResponse,
  TemplateUpload,
  TemplateVersionList,
  TemplateVersionQuery,
  templateComponents,
} from './template-schemas.js';
import { listVersions } from './template-versions.js';
import { validationError } from '../../errors.js';

export { templateComponents };

/** The multipart `detectFields` field: "true" or "false" (absent: false). */
function detectFlag(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw validationError({ field: 'detectFields', expected: '"true" or "false"', received: JSON.stringify(value) });
}

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
          description:
            "Uploads one PDF (multipart `file`, with optional `name` and `description`) and analyses its AcroForm fields into the template's schema; with `detectFields` the fields the form lacks are detected and added too. Counts against the plan's template quota (403 TEMPLATE_LIMIT_REACHED) and file size limit (413 FILE_TOO_LARGE); a file that is not a readable PDF form is 422 INVALID_PDF. Safe to retry with an `Idempotency-Key`. Sends template.created.",
          ...multipartBody(TemplateUpload),
          summary: 'Upload a PDF form as a template; its fields are analysed at once',
          headers: IdempotencyHeaders,
          response: {
            201: ref(TemplateCreatedResponse, 'The template, with its fields analysed (and detected, if asked)'),
            403: errorResponse('TEMPLATE_LIMIT_REACHED: the plan holds no more templates'),
            409: errorResponse('IDEMPOTENCY_KEY_IN_USE: a request with this key is still running'),
            413: errorResponse('FILE_TOO_LARGE: the file exceeds the plan limit'),
            422: errorResponse(
              'INVALID_PDF (not a PDF form; with detectFields, nothing detected or scanned pages, listed in details.pages), VALIDATION_ERROR or IDEMPOTENCY_KEY_REUSED',
            ),
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
                detectFields: detectFlag(upload.fields.detectFields),
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
          description:
            "The account's templates, newest first, without their `description`. Paged with `page`/`limit` or, stable while templates are added, `starting_after` (see `meta.nextCursor`).",
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
          description:
            "One template of this account: name, file, field count, version, frozen state and render settings. Another account's template is 404 TEMPLATE_NOT_FOUND.",
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
          description:
            "The fields of the current version: the key to send in render data, type, options, defaults, constants and rules (the form's own scripts included). Render data is checked against it (422 VALIDATION_ERROR).",
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
      '/templates/:id/versions',
      {
        schema: {
          tags: ['templates'],
          operationId: 'listTemplateVersions',
          summary: "The template's recorded versions, newest first",
          description:
            'The history starts at the first change of the template (its version then is listed as `earlier`); ' +
            'a template never changed has none. Each version gives its number of fields (`keys`) and what the ' +
            'change reported: the mapping of a new file, or the PDF names of the fields a fields change set.',
          params: IdParams,
          querystring: TemplateVersionQuery,
          response: {
            200: ref(TemplateVersionList, 'A page of versions'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            422: errorResponse(),
          },
        },
      },
      async (request) =>
        listVersions(deps, request.auth.accountId, request.params.id, {
          page: request.query.page,
          limit: request.query.limit,
          startingAfter: request.query.starting_after,
        }),
    );

    app.get(
      '/templates/:id/json-schema',
      {
        schema: {
          tags: ['templates'],
          operationId: 'getTemplateJsonSchema',
          description:
            'The same rules as GET /v1/templates/{id}/schema written as a JSON Schema (draft 2020-12) of render data, for validating or generating forms client side before rendering.',
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
          description:
            "The PDF of the template's current version, the one renders fill, with a Content-Disposition naming the file. Not charged.",
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
        // no quota pays for a preview: it draws from the account's budget of unpaid work (http/admission.ts)
        config: { unpaidWork: true },
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
        const preview = await previewTemplate(
          deps,
          request.auth.accountId,
          request.params.id,
          request.body,
          request.auth.renderDefaults,
        );
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
          description:
            'Changes the name, description, render defaults (`locale`, `timezone`; null clears) or the frozen state. A frozen template refuses every change but `isFrozen: false` (409 TEMPLATE_FROZEN). Does not change the version. Sends template.updated.',
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
          description:
            "Uploads a new PDF for the template: its fields are analysed again and the version goes up by 1. Fields matched to the previous file's (same name, or paired by label, place or neighbours) keep their keys, defaults and rules; `fieldMapping` reports which were kept, renamed in the PDF, added, removed, and which settings could not be carried. Renders made before keep their version. Refused for a frozen template (409 TEMPLATE_FROZEN), a file over the plan limit (413) or not a PDF form (422 INVALID_PDF). Sends template.updated.",
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
          description:
            'Deletes the template with its PDF and every recorded version. A frozen template must be unfrozen first (409 TEMPLATE_FROZEN). Sends template.deleted.',
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
