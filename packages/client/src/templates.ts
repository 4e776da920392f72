import type { Context } from './context.js';
import { paginate, type PageCursor } from './paginate.js';
import { type PdfInput, toBlob } from './pdf-input.js';
import { newIdempotencyKey, unwrap } from './transport.js';
import type {
  DetectedFields,
  FieldEdit,
  Page,
  PreviewRequest,
  Template,
  TemplateCreated,
  TemplateFieldsPatch,
  TemplateJsonSchema,
  TemplatePatch,
  TemplateReplaced,
  TemplateSchema,
  TemplateVersion,
} from './types.js';

export type { PdfInput };

export interface UploadOptions {
  /** Template name (default: the file name). */
  name?: string;
  description?: string;
  /** File name sent with the upload (default: the File's name, else "template.pdf"). */
  fileName?: string;
  /** Makes the upload safe to retry; by default the client makes one up for each call. */
  idempotencyKey?: string;
  /**
   * A PDF without form fields gets its fields detected from its drawing and text and added as real
   * fields; the answer lists them in `detections`. Without it such a file is refused (INVALID_PDF).
   */
  detectFields?: boolean;
}

export interface TemplateListQuery {
  page?: number;
  limit?: number;
  startingAfter?: string;
}

export interface TemplateVersionListQuery {
  page?: number;
  limit?: number;
  /** A version number: list the versions before it. */
  startingAfter?: number;
}

function uploadBody(file: PdfInput, options: UploadOptions): FormData {
  const form = new FormData();
  // text fields first: the server reads the parts in order and the file is the last
  if (options.name !== undefined) form.append('name', options.name);
  if (options.description !== undefined) form.append('description', options.description);
  if (options.detectFields !== undefined) form.append('detectFields', String(options.detectFields));
  const fileName =
    options.fileName ?? (typeof File !== 'undefined' && file instanceof File ? file.name : 'template.pdf');
  form.append('file', toBlob(file), fileName);
  return form;
}

const pdfBytes = (buffer: ArrayBuffer) => new Uint8Array(buffer);

/** client.templates: upload, read, change and delete templates, their fields, file and schemas. */
export function templatesApi({ raw }: Context) {
  const templates = {
    /** Upload a PDF form as a template (multipart); its fields are analysed at once. */
    upload: (file: PdfInput, opts: UploadOptions = {}): Promise<TemplateCreated> =>
      unwrap(
        raw.POST('/v1/templates', {
          body: uploadBody(file, opts) as never,
          bodySerializer: (body) => body,
          params: { header: { 'Idempotency-Key': opts.idempotencyKey ?? newIdempotencyKey() } },
        }),
      ).then((r) => r.data),
    list: (query: TemplateListQuery = {}): Promise<Page<Template>> =>
      unwrap(
        raw.GET('/v1/templates', {
          params: { query: { page: query.page, limit: query.limit, starting_after: query.startingAfter } },
        }),
      ),
    /** Every template, newest first, page after page (stable while templates are added meanwhile). */
    all: (query: { limit?: number } = {}): AsyncGenerator<Template, void, undefined> =>
      paginate((cursor: PageCursor) =>
        templates.list({ limit: query.limit ?? 100, startingAfter: cursor.startingAfter }),
      ),
    get: (id: string): Promise<Template> =>
      unwrap(raw.GET('/v1/templates/{id}', { params: { path: { id } } })).then((r) => r.data),
    /** The fields to send in render data. */
    schema: (id: string): Promise<TemplateSchema> =>
      unwrap(raw.GET('/v1/templates/{id}/schema', { params: { path: { id } } })).then((r) => r.data),
    /** The render data as a JSON Schema (draft 2020-12), mirroring strict-mode validation. */
    jsonSchema: (id: string): Promise<TemplateJsonSchema> =>
      unwrap(raw.GET('/v1/templates/{id}/json-schema', { params: { path: { id } } })).then((r) => r.data),
    /** The template's current PDF (as prepared: the file renders start from). */
    file: (id: string): Promise<Uint8Array> =>
      unwrap(
        raw.GET('/v1/templates/{id}/file', { params: { path: { id } }, parseAs: 'arrayBuffer' }) as Promise<{
          data?: ArrayBuffer;
          error?: unknown;
          response: Response;
        }>,
      ).then(pdfBytes),
    /**
     * A filled PDF to look at, not kept and not counted as a render (watermarked as the plan says). `TData`
     * types `data` with the interface `formcast types` wrote.
     */
    preview: <TData extends object = Record<string, unknown>>(
      id: string,
      body: PreviewRequest<TData>,
    ): Promise<Uint8Array> =>
      unwrap(
        raw.POST('/v1/templates/{id}/preview', {
          params: { path: { id } },
          body: body as never,
          parseAs: 'arrayBuffer',
        }) as Promise<{ data?: ArrayBuffer; error?: unknown; response: Response }>,
      ).then(pdfBytes),
    /**
     * The template's recorded versions, newest first (its history starts at its first change): each with
     * its change (`earlier`, `fields`, `file`), number of fields and report (a new file's mapping, or the
     * PDF names of the fields a fields change set).
     */
    listVersions: (id: string, query: TemplateVersionListQuery = {}): Promise<Page<TemplateVersion>> =>
      unwrap(
        raw.GET('/v1/templates/{id}/versions', {
          params: {
            path: { id },
            query: { page: query.page, limit: query.limit, starting_after: query.startingAfter },
          },
        }),
      ),
    update: (id: string, patch: TemplatePatch): Promise<Template> =>
      unwrap(raw.PATCH('/v1/templates/{id}', { params: { path: { id } }, body: patch })).then((r) => r.data),
    /**
     * The fields' own keys, descriptions, defaults, constants and rules (by current key or PDF name), or
     * `useSuggestedNames: true`. A change raises the version; every problem comes back at once in a
     * VALIDATION_ERROR's `details.errors`. Answers the updated schema.
     */
    updateFields: (id: string, body: TemplateFieldsPatch): Promise<TemplateSchema> =>
      unwrap(raw.PATCH('/v1/templates/{id}/fields', { params: { path: { id } }, body })).then((r) => r.data),
    /**
     * Add, change (move, resize, restyle) and delete the PDF's own form fields, in order; `name` in an
     * update or delete may be the field's key or its PDF name. The edited PDF becomes the next version:
     * fields keep their keys and settings, `schema.fieldMapping` says what was added and removed. Refused
     * edits throw a VALIDATION_ERROR naming every field in `details.errors`; nothing is saved.
     */
    editFields: (id: string, edits: FieldEdit[]): Promise<TemplateSchema> =>
      unwrap(raw.POST('/v1/templates/{id}/field-edits', { params: { path: { id } }, body: { edits } })).then(
        (r) => r.data,
      ),
    /**
     * Detect the fields the template's PDF misses (from its drawing and text, around its own widgets)
     * and add them as the next version; fields it had keep their keys. Nothing found: no new version.
     */
    detectFields: (id: string): Promise<DetectedFields> =>
      unwrap(raw.POST('/v1/templates/{id}/detect-fields', { params: { path: { id } } })).then((r) => r.data),
    /**
     * Replace the PDF: the schema is extracted again and the version goes up by one; the fields that map to
     * the old ones keep their keys, defaults and rules (`fieldMapping` says which).
     */
    replaceFile: (
      id: string,
      file: PdfInput,
      opts: Omit<UploadOptions, 'idempotencyKey' | 'detectFields'> = {},
    ): Promise<TemplateReplaced> =>
      unwrap(
        raw.PUT('/v1/templates/{id}/file', {
          params: { path: { id } },
          body: uploadBody(file, opts) as never,
          bodySerializer: (body) => body,
        }),
      ).then((r) => r.data),
    delete: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/templates/{id}', { params: { path: { id } } })).then(() => undefined),
  };
  return templates;
}
