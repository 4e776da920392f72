import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { PdfEngineError } from '../../pdf/types.js';
import { EngineBusyError, EngineCrashedError } from '../../ports/render-engine.js';
import type { PlanName } from '../accounts/plans.js';
import { lockAccount, monthOf, secondsToNextMonth } from '../accounts/quotas.js';
import { downloadUrlFor } from '../downloads/download-url.js';
import { loadTemplate, parseAnalysis } from '../templates/template-view.js';
import { loadTemplateBytes } from '../templates/template-files.js';
import { validateData } from './values/validate-data.js';
import { failDeadRenders } from './dead-renders.js';
import {
  completePendingRender,
  countRendersThisMonth,
  deletePendingRender,
  failPendingRender,
  insertRender,
} from './render-records.js';
import { resolveWatermark } from './watermark-rule.js';

export interface RenderOptions {
  flatten?: boolean;
  locale?: string;
  timezone?: string;
  watermark?: boolean | 'auto';
  strict?: boolean;
}

export interface CreateRenderInput {
  templateId: string;
  data: Record<string, unknown>;
  options?: RenderOptions;
}

const DAY_MS = 86_400_000;

export async function createRender(deps: Deps, account: { id: string; plan: PlanName }, input: CreateRenderInput) {
  const plan = deps.plans[account.plan];
  const options = {
    flatten: true,
    locale: 'fr-FR',
    timezone: 'Europe/Paris',
    watermark: 'auto' as boolean | 'auto',
    strict: false,
    ...input.options,
  };

  // 0. under overload, shed at once what could not start in time: before any template load or quota
  deps.engine.admit?.();

  // 1. load the template (scoped) and validate the data against its schema: no quota spent on bad input
  const template = await loadTemplate(deps, account.id, input.templateId);
  const analysis = parseAnalysis(deps, template);
  const { values, warnings } = validateData(analysis.fields, input.data, {
    strict: options.strict,
    locale: options.locale,
    timezone: options.timezone,
  });
  const watermark = resolveWatermark(plan, options.watermark);
  if (watermark.warning) warnings.push(watermark.warning);

  // 2. reserve one render of the monthly quota: the pending record is the reservation
  const started = deps.clock.now();
  // Durations are measured on a monotonic timer: the clock (wall time, moved by tests) dates records only.
  const t0 = performance.now();
  const elapsedMs = () => Math.round(performance.now() - t0);
  const month = monthOf(started);
  const id = newId('rnd');
  await deps.db.transaction().execute(async (trx) => {
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
    await insertRender(trx, {
      id,
      account_id: account.id,
      template_id: template.id,
      template_name: template.name,
      template_version: template.version,
      status: 'pending',
      file_size: 0,
      duration_ms: 0,
      warnings: '[]',
      error_code: null,
      error_message: null,
      blob_key: null,
      month,
      created_at: started.toISOString(),
      expires_at: new Date(started.getTime() + plan.retentionDays * DAY_MS).toISOString(),
      deleted_at: null,
      owner: deps.instanceId,
    });
  });

  // While pending, the record holds one render of the quota. Nothing attempted: drop it. A failure:
  // keep it as `failed`, which stops it counting. Both only from `pending` (the sweeper may have acted).
  const dropReservation = () => deletePendingRender(deps.db, account.id, id);
  const markFailed = (code: string, message: string) =>
    failPendingRender(deps.db, account.id, id, {
      error_code: code,
      error_message: message,
      duration_ms: elapsedMs(),
      warnings: JSON.stringify(warnings),
    });

  // 3. generate
  let templateBytes: Uint8Array;
  try {
    templateBytes = await loadTemplateBytes(deps, template.blob_key);
  } catch (err) {
    await dropReservation(); // storage trouble is ours, not the template's
    throw err;
  }
  let file: readonly Uint8Array[];
  try {
    const result = await deps.engine.fill(
      templateBytes,
      analysis,
      { values, flatten: options.flatten, watermark: watermark.text, keepUriLinks: deps.config.outputUriLinks },
      template.blob_key,
    );
    file = result.chunks ?? [result.bytes]; // a pool engine's base + update, written without joining them
    warnings.push(...result.warnings);
  } catch (err) {
    if (err instanceof EngineBusyError || err instanceof EngineCrashedError) {
      await dropReservation(); // a server fault, not the template's: the client retries on 503 + Retry-After
      throw err;
    }
    const message = err instanceof PdfEngineError ? err.message : 'The template could not be generated';
    if (!(err instanceof PdfEngineError)) deps.log.error({ err, renderId: id }, 'render failed');
    await markFailed('RENDER_FAILED', message);
    deps.metrics.render('failed', elapsedMs() / 1000);
    throw new AppError('RENDER_FAILED', `Render ${id} failed: ${message}`, { renderId: id });
  }

  // 4. file first, then the record that points at it
  const blobKey = `renders/${account.id}/${id}.pdf`;
  try {
    await deps.blobs.put(blobKey, file);
  } catch (err) {
    await markFailed('INTERNAL_ERROR', 'The file could not be stored'); // ours: answered INTERNAL_ERROR
    throw err;
  }
  const fileSize = file.reduce((n, chunk) => n + chunk.byteLength, 0);
  const durationMs = elapsedMs();
  // only from pending: the sweeper may have given up on it and released its quota
  const done = await completePendingRender(deps.db, account.id, id, {
    blob_key: blobKey,
    file_size: fileSize,
    duration_ms: durationMs,
    warnings: JSON.stringify(warnings),
  });
  if (!done) {
    await deps.blobs.delete(blobKey);
    throw new AppError('RENDER_FAILED', `Render ${id} took too long and was abandoned; retry`, { renderId: id });
  }

  deps.metrics.render('completed', durationMs / 1000);
  return {
    renderId: id,
    status: 'completed' as const,
    downloadUrl: (await downloadUrlFor(deps, { id, blob_key: blobKey, template_name: template.name }))!,
    expiresIn: deps.config.limits.downloadUrlSeconds,
    fileSize,
    durationMs,
    warnings,
  };
}
