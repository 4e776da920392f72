import type { Context } from './context.js';
import { FormcastError } from './errors.js';
import { paginate, type PageCursor } from './paginate.js';
import { type PdfInput, toBlob } from './pdf-input.js';
import { downloadSigned, newIdempotencyKey, unwrap } from './transport.js';
import type {
  Page,
  Render,
  RenderDetail,
  RenderListItem,
  RenderRequest,
  RenderStatus,
  RenderVerification,
  Usage,
} from './types.js';
import { pollUntil, type WaitOptions } from './wait.js';
import type { WebhookEvent } from './webhook-signature.js';

export interface WriteOptions {
  /** Makes the call safe to retry; by default the client makes one up for each call. */
  idempotencyKey?: string;
}

export interface RenderListQuery {
  page?: number;
  limit?: number;
  templateId?: string;
  status?: RenderStatus;
}

/** A render, or what is enough to download it: its id, or a link (with the id to renew it). */
export type Downloadable = string | { downloadUrl?: string | null; renderId?: string; id?: string };

/** A render that has finished: completed (with its link) or failed (with its `error`). */
export type FinishedRender = RenderDetail & { status: 'completed' | 'failed' };

const renderIdOf = (render: Downloadable) => (typeof render === 'string' ? render : (render.renderId ?? render.id));

/** client.renders (and client.usage): fill templates, follow and download renders. */
export function rendersApi({ raw, send }: Context) {
  const renders = {
    /**
     * Fill a template. `TData` types `data`: pass the interface `formcast types` wrote for the template.
     * With the same `idempotencyKey` (and body) a second call answers the first render instead of making
     * (and counting) another; without one, the client makes one up, so its own retries never render
     * twice. `options.async: true` answers at once with `status: 'pending'`: see waitForRender.
     */
    create: <TData extends object = Record<string, unknown>>(
      body: RenderRequest<TData>,
      opts: WriteOptions = {},
    ): Promise<Render> =>
      unwrap(
        raw.POST('/v1/renders', {
          body: body as never,
          params: { header: { 'Idempotency-Key': opts.idempotencyKey ?? newIdempotencyKey() } },
        }),
      ).then((r) => r.data as Render),
    list: (query: RenderListQuery = {}): Promise<Page<RenderListItem>> =>
      unwrap(raw.GET('/v1/renders', { params: { query } })) as Promise<Page<RenderListItem>>,
    /** Every render (filters as in list), newest first, page after page. */
    all: (query: Omit<RenderListQuery, 'page'> = {}): AsyncGenerator<RenderListItem, void, undefined> =>
      paginate((cursor: PageCursor) => renders.list({ ...query, limit: query.limit ?? 100, page: cursor.page })),
    /**
     * Which render of this account made this PDF: `verified` (the very file), `modified` (that file with
     * revisions appended), or `unknown`, with the render when one matches. Not charged.
     */
    verify: (file: PdfInput): Promise<RenderVerification> => {
      const form = new FormData();
      form.append('file', toBlob(file), 'file.pdf');
      return unwrap(raw.POST('/v1/renders/verify', { body: form as never, bodySerializer: (body) => body })).then(
        (r) => r.data as RenderVerification,
      );
    },
    /** A render, with a freshly signed download link. */
    get: (id: string): Promise<RenderDetail> =>
      unwrap(raw.GET('/v1/renders/{id}', { params: { path: { id } } })).then((r) => r.data as RenderDetail),
    /**
     * Wait for a render to finish (an async render, or a batch item): reads it again and again, waiting
     * longer each time, or ends as soon as `event` (its render.completed / render.failed webhook) comes.
     * Answers the render either way: check `status` (`failed` ones carry `error`); throws TIMEOUT.
     */
    waitForRender: (render: Downloadable, options: WaitOptions<WebhookEvent> = {}): Promise<FinishedRender> => {
      const id = renderIdOf(render);
      if (!id) throw new TypeError('waitForRender() needs a render id');
      return pollUntil(
        `render ${id}`,
        () => renders.get(id),
        (r): r is FinishedRender => r.status !== 'pending',
        (e) => (e.type === 'render.completed' || e.type === 'render.failed') && e.data.id === id,
        options,
      ) as Promise<FinishedRender>;
    },
    delete: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/renders/{id}', { params: { path: { id } } })).then(() => undefined),
    /**
     * The PDF's bytes. The signed link is followed without the API key (it carries its own
     * authorisation); when it has expired, or only the id is given, a fresh link is asked for first.
     */
    download: (render: Downloadable): Promise<Uint8Array> => {
      const id = renderIdOf(render);
      const url = typeof render === 'string' ? undefined : (render.downloadUrl ?? undefined);
      if (url === undefined && !id) throw new TypeError('download() needs a render id or a downloadUrl');
      const renew = id
        ? async () => {
            const detail = await renders.get(id);
            if (detail.downloadUrl) return detail.downloadUrl;
            throw new FormcastError(
              `Render "${id}" has no file to download (status ${detail.status})`,
              404,
              'RENDER_NOT_FOUND',
              undefined,
              undefined,
              undefined,
            );
          }
        : undefined;
      return downloadSigned(send, url, renew);
    },
  };
  const usage = {
    /** Use of the current UTC month against the plan. */
    get: (): Promise<Usage> => unwrap(raw.GET('/v1/renders/usage')).then((r) => r.data),
  };
  return { renders, usage };
}
