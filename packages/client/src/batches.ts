import type { Context } from './context.js';
import { FormcastError } from './errors.js';
import type { WriteOptions } from './renders.js';
import { downloadSigned, newIdempotencyKey, unwrap } from './transport.js';
import type { RenderBatch, RenderBatchRequest } from './types.js';
import { pollUntil, type WaitOptions } from './wait.js';
import type { WebhookEvent } from './webhook-signature.js';

/** A batch, or its id. */
type BatchRef = string | Pick<RenderBatch, 'id'>;
const batchIdOf = (batch: BatchRef) => (typeof batch === 'string' ? batch : batch.id);

/** client.batches: many renders in one request, followed as a whole, downloaded as one PDF or a ZIP. */
export function batchesApi({ raw, send }: Context) {
  /** A download link of a completed batch, signed afresh. */
  const freshLink = async (id: string, which: 'combinedDownloadUrl' | 'zipDownloadUrl'): Promise<string> => {
    const batch = await batches.get(id);
    const url = batch[which];
    if (url) return url;
    const why =
      batch.status !== 'completed'
        ? `it is ${batch.status}`
        : which === 'combinedDownloadUrl'
          ? (batch.combineError ?? 'it was not asked to combine (`combine: true`)')
          : 'no item completed';
    throw new FormcastError(
      `Batch "${id}" has no ${which === 'zipDownloadUrl' ? 'ZIP' : 'combined PDF'}: ${why}`,
      404,
      'BATCH_NOT_FOUND',
      undefined,
      undefined,
      undefined,
    );
  };
  const download = (batch: BatchRef | RenderBatch, which: 'combinedDownloadUrl' | 'zipDownloadUrl') => {
    const id = batchIdOf(batch);
    const url = typeof batch === 'string' ? undefined : ((batch as Partial<RenderBatch>)[which] ?? undefined);
    return downloadSigned(send, url, () => freshLink(id, which));
  };

  const batches = {
    /**
     * Accept up to MAX_BATCH_ITEMS renders (templates may differ) and answer at once (`pending`); each
     * item is a render of its own. `combine: true` also builds one PDF of every completed item, in order.
     */
    create: <TData extends object = Record<string, unknown>>(
      body: RenderBatchRequest<TData>,
      opts: WriteOptions = {},
    ): Promise<RenderBatch> =>
      unwrap(
        raw.POST('/v1/renders/batch', {
          body: body as never,
          params: { header: { 'Idempotency-Key': opts.idempotencyKey ?? newIdempotencyKey() } },
        }),
      ).then((r) => r.data as RenderBatch),
    /** The batch, its progress and items, and once completed its signed links. */
    get: (id: string): Promise<RenderBatch> =>
      unwrap(raw.GET('/v1/render-batches/{id}', { params: { path: { id } } })).then((r) => r.data as RenderBatch),
    /**
     * Wait until every item has finished (and the combined PDF is built, if asked): reads the batch with a
     * growing wait, or ends as soon as `event` (its render-batch.completed webhook) comes. Throws TIMEOUT.
     */
    waitForBatch: (batch: BatchRef, options: WaitOptions<WebhookEvent> = {}): Promise<RenderBatch> => {
      const id = batchIdOf(batch);
      return pollUntil(
        `batch ${id}`,
        () => batches.get(id),
        (b) => b.status === 'completed',
        (e) => e.type === 'render-batch.completed' && e.data.id === id,
        options,
      );
    },
    /** One PDF of every completed item in order (a batch created with `combine: true`). */
    downloadCombined: (batch: BatchRef): Promise<Uint8Array> => download(batch, 'combinedDownloadUrl'),
    /** A ZIP of every completed item's PDF. */
    downloadZip: (batch: BatchRef): Promise<Uint8Array> => download(batch, 'zipDownloadUrl'),
  };
  return batches;
}
