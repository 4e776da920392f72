import type { RenderAccount } from '../render-data/render-defaults.js';
import type { Deps } from '../../deps.js';
import { AppError, DataValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { EngineBusyError, EngineCrashedError } from '../../ports/render-engine.js';
import type { PlanName } from '../../plans.js';
import { lockAccount } from '../accounts/account-records.js';
import { monthOf, secondsToNextMonth } from '../accounts/quotas.js';
import { downloadUrlFor } from '../downloads/download-url.js';
import { failDeadRenders } from './dead-renders.js';
import { countRendersThisMonth, deletePendingRender, insertRender } from './render-records.js';
import {
  engineFailureMessage,
  generateFile,
  templateBytesOf,
  pendingRecord,
  prepareRender,
  recordCompleted,
  recordFailed,
  renderBlobKey,
  type CreateRenderInput,
  type PreparedRender,
} from './render-steps.js';
import { sealOutput, sealedColumns, type SealedFile } from './seal-output.js';
import { insertRenderJobs, PRIORITY } from '../render-jobs/job-records.js';
import { announceUsageThresholds } from '../events/usage-threshold.js';

export type { CreateRenderInput, RenderOptions } from './render-steps.js';

const NO_ATTRIBUTES = {};
/** How long a client is asked to wait after the file store failed a write. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** A render accepted asynchronously: GET /renders/:id follows it; render.completed / render.failed report it. */
export interface AcceptedRender {
  id: string;
  renderId: string;
  status: 'pending';
  downloadUrl: null;
  expiresIn: 0;
  fileSize: 0;
  durationMs: 0;
  warnings: string[];
}

export async function createRender(deps: Deps, account: RenderAccount & { plan: PlanName }, input: CreateRenderInput) {
  const plan = deps.plans[account.plan];
  const isAsync = input.options?.async === true;

  // 0. under overload, shed at once what could not start in time: before any template load or quota
  // (an async render waits in the job queue instead, which the runner drains at its own pace)
  if (!isAsync) deps.engine.admit?.();

  // 1. load the template (scoped) and validate the data against its schema: no quota spent on bad input
  const prepared = await deps.tracer.inSpan('render.prepare', NO_ATTRIBUTES, () =>
    prepareRender(deps, account, input, undefined, !isAsync),
  );
  const { template, warnings } = prepared;

  // 2. reserve one render of the monthly quota: the pending record is the reservation
  const started = deps.clock.now();
  // Durations are measured on a monotonic timer: the clock (wall time, moved by tests) dates records only.
  const t0 = performance.now();
  const elapsedMs = () => Math.round(performance.now() - t0);
  const month = monthOf(started);
  const id = newId('rnd');
  const blobKey = renderBlobKey(account.id, id);
  // A synchronous render's fill and its output's file start now, beside the reservation: the worker
  // fills and the file store creates the file (an inode search on a busy ext4) while this thread reserves
  // the quota. Both are used only once the reservation holds; a refused one discards them. An account
  // already at its limit (a read outside the reservation's lock, only a hint) gets nothing started, nor
  // does a render that would wait for a worker: a burst past the quota would otherwise queue a fill per
  // request, each thrown away, and push the next requests' admission to 503 (it wins nothing when the
  // fill waits anyway). Only with the worker pool (the in-process engine fills on this thread, and has
  // no stats), and with the template's file at hand, so the fill reaches the pool without I/O before
  // another request can see the same free worker. Both are looked at before the usage hint (a busy pool
  // costs no query) and the pool again after it.
  const early =
    !isAsync &&
    engineFree(deps.engine) &&
    deps.caches.templateFiles.has(template.blob_key) &&
    (await countRendersThisMonth(deps.db, account.id, month)) < plan.rendersPerMonth &&
    engineFree(deps.engine)
      ? { generating: startGenerating(deps, prepared, account.id), output: deps.blobs.startPut(blobKey) }
      : undefined;
  const reserve = () =>
    deps.db.transaction().execute(async (trx) => {
      await lockAccount(trx, deps.dbKind, account.id);
      // A reservation whose process died (a crash cut the request) no longer counts: a client retrying
      // it is not charged twice.
      await failDeadRenders(deps, trx, { accountId: account.id, month });
      const used = await countRendersThisMonth(trx, account.id, month);
      if (used >= plan.rendersPerMonth) {
        throw new AppError(
          'RENDER_LIMIT_REACHED',
          `Monthly render limit reached: ${used}/${plan.rendersPerMonth} renders used in ${month} on the ${plan.name} plan`,
          { used, limit: plan.rendersPerMonth },
          { 'Retry-After': String(secondsToNextMonth(started)) },
        );
      }
      // An async render has no owner process: its durable job (render_jobs) is what gets it done.
      await insertRender(
        trx,
        pendingRecord(deps, account, template, {
          id,
          month,
          createdAt: started,
          owner: isAsync ? null : deps.instanceId,
          flattened: prepared.flatten,
        }),
      );
      if (isAsync) await insertRenderJobs(trx, [asyncJob(deps, account.id, id, input, started)]);
      // usage.renders.threshold at 80 % and 100 %, once each per month (exact: the account is locked)
      await announceUsageThresholds(
        trx,
        { accountId: account.id, month, used: used + 1, limit: plan.rendersPerMonth },
        started,
        deps.tracer.traceparent(),
      );
    });
  try {
    await deps.tracer.inSpan('render.reserve', NO_ATTRIBUTES, reserve);
  } catch (err) {
    // The fill ends within this request's turn: the main-process share counts it as in the engine
    // until it is back (main-share.ts), so it must not come back after the turn.
    await Promise.all([early?.output.abandon(), early?.generating]);
    throw err;
  }

  if (isAsync) {
    deps.jobs.wake();
    return {
      id,
      renderId: id,
      status: 'pending',
      downloadUrl: null,
      expiresIn: 0,
      fileSize: 0,
      durationMs: 0,
      warnings,
    } satisfies AcceptedRender;
  }

  // While pending, the record holds one render of the quota. Nothing attempted: drop it. A failure:
  // keep it as `failed`, which stops it counting. Both only from `pending` (the sweeper may have acted).
  const dropReservation = () => deletePendingRender(deps.db, account.id, id);
  const markFailed = (code: string, message: string) =>
    recordFailed(deps, account.id, id, { code, message, durationMs: elapsedMs(), warnings });

  // 3. the fill started above, while the file store prepares the output's write (step 4)
  const output = early?.output ?? deps.blobs.startPut(blobKey);
  const generated = await (early?.generating ?? startGenerating(deps, prepared, account.id));
  if (generated.failed === 'template') {
    await output.abandon();
    await dropReservation(); // storage trouble is ours, not the template's
    throw generated.err;
  }
  let sealed: SealedFile;
  try {
    if (generated.failed) throw generated.err;
    warnings.push(...generated.warnings);
    sealed = await sealOutput(deps, account.id, prepared.seal, generated.file);
  } catch (err) {
    await output.abandon();
    if (err instanceof EngineBusyError || err instanceof EngineCrashedError) {
      await dropReservation(); // a server fault, not the template's: the client retries on 503 + Retry-After
      throw err;
    }
    if (err instanceof DataValidationError) {
      await dropReservation(); // strict mode and the form's own check refused a value: not charged, like any 422
      throw err;
    }
    const message = engineFailureMessage(deps, err, id);
    await markFailed('RENDER_FAILED', message);
    deps.metrics.render('failed', elapsedMs() / 1000);
    throw new AppError('RENDER_FAILED', `Render ${id} failed: ${message}`, { renderId: id });
  }

  // 4. file first, then the record that points at it
  const { file } = sealed;
  try {
    await output.finish(file);
  } catch (err) {
    // The store's fault, not the caller's: nothing in their history, nothing charged, and a 503 that
    // says to retry. A file half-written by the store is an orphan the housekeeping sweep removes.
    await dropReservation();
    throw Object.assign(
      new AppError('SERVICE_UNAVAILABLE', 'The file store is unavailable; retry shortly', undefined, {
        'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS),
      }),
      { cause: err },
    );
  }
  const fileSize = file.reduce((n, chunk) => n + chunk.byteLength, 0);
  const durationMs = elapsedMs();
  // only from pending: the sweeper may have given up on it and released its quota
  const done = await recordCompleted(deps, account.id, id, {
    blob_key: blobKey,
    file_size: fileSize,
    duration_ms: durationMs,
    warnings,
    ...sealedColumns(sealed),
  });
  if (!done) {
    await deps.blobs.delete(blobKey);
    throw new AppError('RENDER_FAILED', `Render ${id} took too long and was abandoned; retry`, { renderId: id });
  }

  deps.metrics.render('completed', durationMs / 1000);
  return {
    id,
    renderId: id,
    status: 'completed' as const,
    downloadUrl: (await downloadUrlFor(deps, { id, blob_key: blobKey, template_name: template.name }))!,
    expiresIn: deps.config.limits.downloadUrlSeconds,
    fileSize,
    durationMs,
    sha256: sealed.sha256,
    warnings,
  };
}

/** A worker pool with a worker free and nobody waiting: a fill sent now starts at once. */
function engineFree(engine: Deps['engine']): boolean {
  const stats = engine.stats?.();
  return stats !== undefined && stats.queued === 0 && stats.active < stats.size;
}

/** A fill's outcome, never a rejection: a fill started before the reservation may be discarded unread. */
type Generated =
  | { failed: false; file: readonly Uint8Array[]; warnings: string[] }
  | { failed: 'template' | 'fill'; err: unknown };

async function startGenerating(deps: Deps, prepared: PreparedRender, accountId: string): Promise<Generated> {
  let templateBytes: Uint8Array;
  try {
    templateBytes = await templateBytesOf(deps, prepared);
  } catch (err) {
    return { failed: 'template', err };
  }
  try {
    return { failed: false, ...(await generateFile(deps, prepared, templateBytes, 'interactive', accountId)) };
  } catch (err) {
    return { failed: 'fill', err };
  }
}

function asyncJob(
  deps: Pick<Deps, 'clock' | 'tracer'>,
  accountId: string,
  renderId: string,
  input: CreateRenderInput,
  at: Date,
) {
  return {
    render_id: renderId,
    account_id: accountId,
    batch_id: null,
    priority: PRIORITY.async,
    input: JSON.stringify({ templateId: input.templateId, data: input.data, options: input.options ?? {} }),
    attempts: 0,
    lease_owner: null,
    lease_expires_at: null,
    run_after: at.toISOString(),
    created_at: deps.clock.now().toISOString(),
    // the job's span joins this request's trace
    traceparent: deps.tracer.traceparent() ?? null,
  };
}
