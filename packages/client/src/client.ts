import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/schema.js';
import { FormcastError } from './errors.js';
import { type PageCursor, paginate } from './paginate.js';
import { type RetryOptions, retryingFetch } from './retry.js';
import type {
  ApiKey,
  ApiKeyCreated,
  DetectedFields,
  FieldEdit,
  Page,
  Render,
  RenderDetail,
  RenderListItem,
  RenderRequest,
  Template,
  TemplateCreated,
  TemplatePatch,
  TemplateFieldsPatch,
  TemplateReplaced,
  TemplateSchema,
  TemplateVersion,
  Usage,
} from './types.js';

export interface ClientOptions {
  /** The server's address, e.g. https://formcast.example.com (without /v1). */
  baseUrl: string;
  /** An API key (fc_live_...), sent as Authorization: Bearer. */
  apiKey: string;
  /** A fetch implementation (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries on 429 RATE_LIMITED, 503 and 409 IDEMPOTENCY_KEY_IN_USE; false turns them off. */
  retry?: RetryOptions | false;
}

/** A PDF to upload: bytes, or a Blob/File (a File's name is the default file name). */
export type PdfInput = Uint8Array | ArrayBuffer | Blob;

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

export interface WriteOptions {
  /** Makes the call safe to retry; by default the client makes one up for each call. */
  idempotencyKey?: string;
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

export interface RenderListQuery {
  page?: number;
  limit?: number;
  templateId?: string;
  status?: 'completed' | 'failed';
}

/** A render, or what is enough to download it: its id, or a link (with the id to renew it). */
export type Downloadable = string | { downloadUrl?: string | null; renderId?: string; id?: string };

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The body of a 2xx answer, or a FormcastError built from the error answer. */
async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw FormcastError.from(response, error);
  return data as T;
}

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

function toBlob(file: PdfInput): Blob {
  if (file instanceof Blob) return file;
  return new Blob([file instanceof Uint8Array ? new Uint8Array(file) : file], { type: 'application/pdf' });
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

export type FormcastClient = ReturnType<typeof createClient>;

/**
 * A client for the formcast API. Methods return the resource (the `data` of the answer) and throw
 * FormcastError on error answers; `raw` is the typed openapi-fetch client for anything else.
 */
export function createClient(options: ClientOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const send = options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const raw: Client<paths> = createFetchClient<paths>({
    baseUrl,
    fetch: send,
    headers: { Authorization: `Bearer ${options.apiKey}` },
  });

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

  const renders = {
    /**
     * Fill a template. With the same `idempotencyKey` (and body) a second call answers the first render
     * instead of making (and counting) another; without one, the client makes one up, so its own
     * retries never render twice.
     */
    create: (body: RenderRequest, opts: WriteOptions = {}): Promise<Render> =>
      unwrap(
        raw.POST('/v1/renders', {
          body,
          params: { header: { 'Idempotency-Key': opts.idempotencyKey ?? newIdempotencyKey() } },
        }),
      ).then((r) => r.data),
    list: (query: RenderListQuery = {}): Promise<Page<RenderListItem>> =>
      unwrap(raw.GET('/v1/renders', { params: { query } })),
    /** Every render (filters as in list), newest first, page after page. */
    all: (query: Omit<RenderListQuery, 'page'> = {}): AsyncGenerator<RenderListItem, void, undefined> =>
      paginate((cursor: PageCursor) => renders.list({ ...query, limit: query.limit ?? 100, page: cursor.page })),
    /** A render, with a freshly signed download link. */
    get: (id: string): Promise<RenderDetail> =>
      unwrap(raw.GET('/v1/renders/{id}', { params: { path: { id } } })).then((r) => r.data),
    delete: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/renders/{id}', { params: { path: { id } } })).then(() => undefined),
    /**
     * The PDF's bytes. The signed link is followed without the API key (it carries its own
     * authorisation); when it has expired, or only the id is given, a fresh link is asked for first.
     */
    download: async (render: Downloadable): Promise<Uint8Array> => {
      const id = typeof render === 'string' ? render : (render.renderId ?? render.id);
      let url = typeof render === 'string' ? undefined : (render.downloadUrl ?? undefined);
      for (let fresh = url === undefined; ; fresh = true) {
        if (url === undefined) {
          if (!id) throw new TypeError('download() needs a render id or a downloadUrl');
          const detail = await renders.get(id);
          if (!detail.downloadUrl)
            throw new FormcastError(
              `Render "${id}" has no file to download (status ${detail.status})`,
              404,
              'RENDER_NOT_FOUND',
              undefined,
              undefined,
              undefined,
            );
          url = detail.downloadUrl;
        }
        const response = await send(new Request(url));
        if (response.ok) return new Uint8Array(await response.arrayBuffer());
        // an expired link: renew it once, when the render's id is known
        if (response.status === 403 && !fresh && id) {
          await response.body?.cancel();
          url = undefined;
          continue;
        }
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        throw FormcastError.from(response, body);
      }
    },
  };

  const usage = {
    /** Use of the current UTC month against the plan. */
    get: (): Promise<Usage> => unwrap(raw.GET('/v1/renders/usage')).then((r) => r.data),
  };

  const apiKeys = {
    list: (): Promise<ApiKey[]> => unwrap(raw.GET('/v1/api-keys')).then((r) => r.data),
    /** A new key; its secret (`key`) is in this answer only. */
    create: (name?: string): Promise<ApiKeyCreated> =>
      unwrap(raw.POST('/v1/api-keys', name === undefined ? {} : { body: { name } })).then((r) => r.data),
    revoke: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })).then(() => undefined),
  };

  return { raw, templates, renders, usage, apiKeys };
}
