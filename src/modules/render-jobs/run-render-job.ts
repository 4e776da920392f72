import { sealOutput, sealedColumns, type SealedFile } from '../renders/seal-output.js';
import type { Deps } from '../../deps.js';
import { AppError, DataValidationError, EngineBusyError, EngineCrashedError } from '../../errors.js';
import type { PlanName } from '../../plans.js';
import {
  engineFailureMessage,
  generateFile,
  templateBytesOf,
  prepareRender,
  recordCompleted,
  recordFailed,
  renderBlobKey,
  type CreateRenderInput,
} from '../renders/render-steps.js';
import { isDatabaseUnavailable } from '../../adapters/db/unavailable.js';
import { findAccountPlan } from '../accounts/account-records.js';
import { releaseJob, takeJobForFinish, type RenderJobRow } from './job-records.js';

export type JobDeps = Pick<
  Deps,
  | 'db'
  | 'dbKind'
  | 'clock'
  | 'plans'
  | 'blobs'
  | 'caches'
  | 'engine'
  | 'config'
  | 'log'
  | 'metrics'
  | 'instanceId'
  | 'signingKey'
  | 'tracer'
  | 'operatorCertificate'
>;

/**
 * Claims after which a job whose run keeps crashing (its worker or its process dies under it) is
 * failed: such a job may be what kills them. An outage (storage, database, busy engine) is not the
 * job's doing: it is retried for `jobRetryHours` instead, however many claims that takes.
 */
const MAX_CRASHES = 5;

/** Backoff before a job given back is claimed again: 2 s, 4 s, 8 s, … at most 60 s. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.min(attempts, 16));
}

export type JobOutcome = 'completed' | 'failed' | 'released' | 'lost';

/**
 * Runs one claimed job to its end: the same steps as a synchronous render, at background priority.
 * The request is validated again against the template as it is now (it may have changed since the job
 * was accepted): a problem of the input fails the render with its code; a server fault gives the job
 * back for a retry (failed after MAX_ATTEMPTS). `stopping()` true: the process is shutting down, so an
 * error gives the job back rather than failing it.
 */
export async function runRenderJob(
  deps: JobDeps,
  job: RenderJobRow,
  stopping: () => boolean = () => false,
): Promise<JobOutcome> {
  const accountId = job.account_id;
  const id = job.render_id;
  const guard = (trx: Deps['db']) => takeJobForFinish(trx, id, deps.instanceId);
  const t0 = performance.now();
  const elapsedMs = () => Math.round(performance.now() - t0);
  const fail = async (code: string, message: string, warnings?: string[]) => {
    const ok = await recordFailed(deps, accountId, id, { code, message, durationMs: elapsedMs(), warnings }, guard);
    if (ok) deps.metrics.render('failed', elapsedMs() / 1000);
    return ok ? 'failed' : 'lost';
  };
  /** `outage`: a dependency is down (storage, database, busy engine), not the job at fault. */
  const giveBack = async (err: unknown, outage: boolean): Promise<JobOutcome> => {
    const age = deps.clock.now().getTime() - Date.parse(job.created_at);
    const spent = outage ? age > deps.config.limits.jobRetryHours * 3_600_000 : job.attempts >= MAX_CRASHES;
    if (!stopping() && spent) {
      deps.log.error({ err, renderId: id, attempts: job.attempts }, 'async render failed after its last attempt');
      return fail(
        'RENDER_FAILED',
        outage
          ? `The render could not be completed: storage or database unavailable for ${deps.config.limits.jobRetryHours} h`
          : 'The render could not be completed after several attempts',
      );
    }
    deps.log.warn({ err, renderId: id, attempts: job.attempts }, 'async render given back for a retry');
    await releaseJob(deps.db, id, deps.instanceId, new Date(deps.clock.now().getTime() + retryDelayMs(job.attempts)));
    return 'released';
  };

  const account = await findAccountPlan(deps.db, accountId);
  if (!account) return fail('RENDER_FAILED', 'The account no longer exists');
  const input = JSON.parse(job.input) as CreateRenderInput;

  let prepared: Awaited<ReturnType<typeof prepareRender>>;
  try {
    // the account's render defaults as they are now, like its template's (read again at each run)
    const renderDefaults = { locale: account.default_locale ?? null, timezone: account.default_timezone ?? null };
    prepared = await prepareRender(deps, { id: account.id, plan: account.plan as PlanName, renderDefaults }, input);
  } catch (err) {
    if (err instanceof AppError || err instanceof DataValidationError) return fail(err.code, err.message);
    return giveBack(err, isDatabaseUnavailable(err));
  }
  let templateBytes: Uint8Array;
  try {
    templateBytes = await templateBytesOf(deps, prepared);
  } catch (err) {
    if (err instanceof AppError) return fail(err.code, err.message); // the file is gone: no retry helps
    return giveBack(err, true); // storage trouble is ours, not the template's
  }
  let sealed: SealedFile;
  const warnings = prepared.warnings;
  try {
    const result = await generateFile(deps, prepared, templateBytes, 'background', accountId);
    warnings.push(...result.warnings);
    sealed = await sealOutput(deps, accountId, prepared.seal, result.file);
  } catch (err) {
    if (stopping() || err instanceof EngineBusyError || err instanceof EngineCrashedError)
      return giveBack(err, err instanceof EngineBusyError);
    // strict mode and the form's own check refused a value: failed (not charged), with the message
    if (err instanceof DataValidationError) return fail(err.code, err.message, warnings);
    return fail('RENDER_FAILED', engineFailureMessage(deps, err, id), warnings);
  }

  // file first, then the record that points at it
  const blobKey = renderBlobKey(accountId, id);
  const { file } = sealed;
  try {
    await deps.blobs.put(blobKey, file);
  } catch (err) {
    return giveBack(err, true);
  }
  const durationMs = elapsedMs();
  const fileSize = file.reduce((n, chunk) => n + chunk.byteLength, 0);
  const done = await recordCompleted(
    deps,
    accountId,
    id,
    { blob_key: blobKey, file_size: fileSize, duration_ms: durationMs, warnings, ...sealedColumns(sealed) },
    guard,
  );
  // Lost: another instance took the job over (ours looked dead). Its copy writes the same key, so the
  // file is left alone: it is either pointed at by that instance's record or swept as an orphan.
  if (!done) return 'lost';
  deps.metrics.render('completed', durationMs / 1000);
  return 'completed';
}
