import { PdfEngineError } from '../../pdf/types.js';
import { publishEvent } from '../events/publish-event.js';
import { listBatchItemRows } from '../renders/render-records.js';
import type { JobDeps } from '../render-jobs/run-render-job.js';
import { completeBatch, releaseBatch, type BatchRow } from './batch-records.js';
import { batchEventData } from './batch-view.js';

/** The combined file was built but its signature failed (certificate deleted, time-stamp authority down). */
class CombinedSigningError extends Error {}

/** An engine refusal while signing (certificate deleted, time-stamp authority down) as a signing error. */
function asSigningError<T>(work: Promise<T>): Promise<T> {
  return work.catch((err: unknown) => {
    if (err instanceof PdfEngineError) throw new CombinedSigningError(err.message);
    throw err;
  });
}

function combinedBlobKey(accountId: string, batchId: string): string {
  return `batches/${accountId}/${batchId}.pdf`;
}

/** `deferred`: a server fault; the caller keeps the claim for a backoff and tries again. */
export type FinishOutcome = 'completed' | 'deferred' | 'released';

/**
 * A claimed batch whose items are all done: builds the combined PDF of its completed items when asked
 * (in a render worker, at background priority), then marks it completed with its
 * `render-batch.completed` event in one transaction. A combine the engine refuses is reported on the
 * batch (`combineError`); a server fault (storage down, busy engine) defers it, until `jobRetryHours`
 * after the batch was accepted, when it completes with the fault as its `combineError`.
 */
export async function finishBatch(deps: JobDeps, batch: BatchRow, stopping: () => boolean): Promise<FinishOutcome> {
  const items = await listBatchItemRows(deps.db, batch.account_id, batch.id);
  let combinedKey: string | null = null;
  let combineError: string | null = null;
  if (batch.combine) {
    const done = items.filter((r) => r.status === 'completed' && r.blob_key);
    if (done.length === 0) combineError = 'No item completed: there is nothing to combine';
    else {
      try {
        // Items are streamed from storage one at a time and the result is stored from the engine's file:
        // whatever the batch, this process never holds the items or the combined PDF (issue 27 item 9).
        const sources = done.map((r) => ({
          open: async () => (await deps.blobs.stream(r.blob_key!)).body,
          flattened: r.flattened !== 0,
        }));
        // Signed once as a whole, without this process reading the file: the engine writes the signature
        // field and hashes the byte range as it builds the file; the CMS is made here and written in place.
        // signing's code loads with the first signature (seal-output.ts says why)
        const signing = batch.signed_with
          ? await asSigningError(
              import('../signing/sign-output.js').then((m) =>
                m.accountDetachedSigning(deps, batch.account_id, batch.signed_with!),
              ),
            )
          : undefined;
        const file = await deps.engine.combine(sources, {
          priority: 'background',
          tenant: batch.account_id,
          signature: signing?.slot,
        });
        try {
          const key = combinedBlobKey(batch.account_id, batch.id);
          if (signing) {
            const prepared = file.signature;
            if (!prepared) throw new CombinedSigningError('the engine did not prepare the signature');
            const cms = await asSigningError(signing.cms(Buffer.from(prepared.digest, 'hex')));
            const { embedSignatureInFile } = await import('../signing/signed-file.js');
            await asSigningError(embedSignatureInFile(file.path, prepared.byteRange, cms));
          }
          await deps.blobs.putFile(key, file.path);
          combinedKey = key;
        } finally {
          await file.dispose();
        }
      } catch (err) {
        if (stopping()) {
          await releaseBatch(deps.db, batch.id, deps.instanceId);
          return 'released';
        }
        if (err instanceof CombinedSigningError) combineError = `The combined file could not be signed: ${err.message}`;
        else if (err instanceof PdfEngineError) combineError = `The items could not be combined: ${err.message}`;
        else {
          const hours = deps.config.limits.jobRetryHours;
          if (deps.clock.now().getTime() - Date.parse(batch.created_at) <= hours * 3_600_000) {
            deps.log.warn({ err, batchId: batch.id }, 'combined file not built yet; retrying later');
            return 'deferred';
          }
          deps.log.error({ err, batchId: batch.id }, 'combined file given up after the retry window');
          combineError = `The combined file could not be built: storage unavailable for ${hours} h`;
        }
      }
    }
  }
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const ok = await completeBatch(trx, batch.id, deps.instanceId, {
      combined_blob_key: combinedKey,
      combine_error: combineError,
      completed_at: now.toISOString(),
    });
    if (!ok) return;
    const done = {
      ...batch,
      status: 'completed',
      combined_blob_key: combinedKey,
      combine_error: combineError,
      completed_at: now.toISOString(),
    };
    await publishEvent(
      trx,
      {
        accountId: batch.account_id,
        type: 'render-batch.completed',
        data: batchEventData(done, items),
        traceparent: deps.tracer.traceparent(),
      },
      now,
    );
  });
  return 'completed';
}
