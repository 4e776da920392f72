import { type RenderAccount, resolveRenderLocale } from '../render-data/render-defaults.js';
import type { Deps } from '../../deps.js';
import type { Db } from '../../adapters/db/database.js';
import { PdfEngineError } from '../../pdf/types.js';
import type { FillValue, TemplateAnalysis } from '../../pdf/types.js';
import type { PlanName } from '../../plans.js';
import { publishEvent } from '../events/publish-event.js';
import { loadTemplateForRender, type LoadedTemplate } from '../templates/template-view.js';
import type { RenderTemplate } from '../templates/template-records.js';
import { validateForTemplate } from '../templates/validate-for-template.js';
import type { TemplateField } from '../render-data/template-field.js';
import { scriptRejectionWarnings } from '../render-data/script-rejections.js';
import { loadTemplateBytes } from '../templates/template-files.js';
import { resolveWatermark } from './watermark-rule.js';
import { completePendingRender, failPendingRender, type RenderRow } from './render-records.js';
import { renderEventData } from './render-view.js';
import { checkSealOptions, signatureFieldOf, type SealRequest } from './seal-output.js';
import type { ProtectOptions } from '../../pdf/seal/protect.js';

// The steps every render goes through, whether its caller waits (create-render.ts) or not (the job
// runner, modules/render-jobs/): load and validate, generate, then record the outcome with its event.

export interface RenderOptions {
  flatten?: boolean;
  locale?: string;
  timezone?: string;
  watermark?: boolean | 'auto';
  strict?: boolean;
  /** run the form's scripts (default true); false: computed fields take data like any other */
  calculate?: boolean;
  /** answer 202 at once with the render `pending`; it completes in the background */
  async?: boolean;
  /** encrypt the file (synchronous renders only: the passwords are never stored) */
  protect?: ProtectOptions;
  /** sign the file: true (the account's default certificate) or a certificate id */
  sign?: boolean | string;
}

export interface CreateRenderInput {
  templateId: string;
  data: Record<string, unknown>;
  options?: RenderOptions;
}

export interface PreparedRender {
  template: RenderTemplate;
  analysis: TemplateAnalysis;
  /** the fields as the render sees them (render keys), for naming what the form's scripts refused */
  fields: TemplateField[];
  values: Record<string, FillValue>;
  warnings: string[];
  flatten: boolean;
  strict: boolean;
  calculate: boolean;
  watermarkText?: string;
  /** what seals the file after the engine (seal-output.ts) */
  seal: SealRequest;
}

const DAY_MS = 86_400_000;

/** Templates already loaded and parsed, by id (a batch names the same few templates many times). */
export type TemplateMemo = Map<string, LoadedTemplate>;

/** 1. load the template (scoped) and validate the data against its schema: no quota spent on bad input. */
export async function prepareRender(
  deps: Pick<Deps, 'db' | 'plans' | 'caches' | 'config' | 'clock' | 'operatorCertificate'>,
  account: RenderAccount & { plan: PlanName },
  input: CreateRenderInput,
  memo?: TemplateMemo,
  /** true for a synchronous render, the only kind whose passwords (options.protect) need no storing */
  mayProtect = false,
): Promise<PreparedRender> {
  const plan = deps.plans[account.plan];
  let loaded = memo?.get(input.templateId);
  if (!loaded) {
    loaded = await loadTemplateForRender(deps, account.id, input.templateId);
    memo?.set(input.templateId, loaded);
  }
  const { template, analysis, fields } = loaded;
  const options = {
    flatten: true,
    watermark: 'auto' as const,
    strict: false,
    calculate: true,
    ...input.options,
    ...(await resolveRenderLocale(deps, account, template, input.options)),
  };
  const { values, warnings } = await validateForTemplate(
    deps.db,
    { accountId: account.id, templateId: template.id },
    fields,
    input.data,
    {
      strict: options.strict,
      locale: options.locale,
      timezone: options.timezone,
      calculate: options.calculate,
    },
  );
  const seal = await checkSealOptions(deps, account.id, options, mayProtect);
  if (seal.signWith) seal.signatureField = signatureFieldOf(analysis, values);
  const watermark = resolveWatermark(plan, options.watermark);
  if (watermark.warning) warnings.push(watermark.warning);
  return {
    template,
    analysis,
    fields,
    values,
    warnings,
    flatten: options.flatten,
    strict: options.strict,
    calculate: options.calculate,
    watermarkText: watermark.text,
    seal,
  };
}

/** The pending record that reserves one render of the month's quota. */
export function pendingRecord(
  deps: Pick<Deps, 'plans'>,
  account: { id: string; plan: PlanName },
  template: Pick<RenderTemplate, 'id' | 'name' | 'version'>,
  r: {
    id: string;
    month: string;
    createdAt: Date;
    owner: string | null;
    flattened: boolean;
    batchId?: string;
    batchIndex?: number;
  },
): RenderRow {
  const plan = deps.plans[account.plan];
  return {
    id: r.id,
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
    month: r.month,
    created_at: r.createdAt.toISOString(),
    expires_at: new Date(r.createdAt.getTime() + plan.retentionDays * DAY_MS).toISOString(),
    deleted_at: null,
    owner: r.owner,
    batch_id: r.batchId ?? null,
    batch_index: r.batchIndex ?? null,
    flattened: r.flattened ? 1 : 0,
    sha256: null,
    protected: 0,
    signed_with: null,
  };
}

/** The template's file (storage trouble here is ours, not the template's). */
export function templateBytesOf(deps: Pick<Deps, 'blobs' | 'caches'>, p: PreparedRender): Promise<Uint8Array> {
  return loadTemplateBytes(deps, p.template);
}

/**
 * 3. generate: the file as chunks (a pool engine's base + update, never joined) and the engine's warnings,
 * with a SCRIPT_REJECTED_VALUE warning per value the form's own checks refused. In strict mode such a value
 * throws DataValidationError instead: the caller releases the render's reservation (nothing is charged).
 */
export async function generateFile(
  deps: Pick<Deps, 'engine' | 'config'>,
  p: PreparedRender,
  templateBytes: Uint8Array,
  priority: 'interactive' | 'background',
  tenant: string,
): Promise<{ file: readonly Uint8Array[]; warnings: string[] }> {
  const result = await deps.engine.fill(
    templateBytes,
    p.analysis,
    {
      values: p.values,
      flatten: p.flatten,
      watermark: p.watermarkText,
      keepUriLinks: deps.config.outputUriLinks,
      calculate: p.calculate,
    },
    p.template.blob_key,
    { priority, tenant },
  );
  const rejected = scriptRejectionWarnings(p.fields, result.scriptRejections, p.strict, p.analysis.fields);
  return { file: result.chunks ?? [result.bytes], warnings: [...result.warnings, ...rejected] };
}

export function renderBlobKey(accountId: string, renderId: string): string {
  return `renders/${accountId}/${renderId}.pdf`;
}

/** What a failed render records for an engine error (an unexpected one is logged, never shown). */
export function engineFailureMessage(deps: Pick<Deps, 'log'>, err: unknown, renderId: string): string {
  if (err instanceof PdfEngineError) return err.message;
  deps.log.error({ err, renderId }, 'render failed');
  return 'The template could not be generated';
}

type Guard = (trx: Db) => Promise<boolean>;

/** What a completed render records of its file. */
export interface CompletedFile {
  blob_key: string;
  file_size: number;
  duration_ms: number;
  sha256: string;
  protected: number;
  signed_with: string | null;
}

/**
 * pending -> completed and its `render.completed` event, in one transaction; `guard` runs first in it
 * (a job runner checks it still holds the job) and a false answer changes nothing. False when the render
 * was no longer pending or the guard refused.
 */
export async function recordCompleted(
  deps: Pick<Deps, 'db' | 'clock' | 'tracer'>,
  accountId: string,
  id: string,
  done: CompletedFile & { warnings: string[] },
  guard?: Guard,
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    if (guard && !(await guard(trx))) return false;
    const row = await completePendingRender(trx, accountId, id, { ...done, warnings: JSON.stringify(done.warnings) });
    if (!row) return false;
    await publishRenderEvent(deps, trx, row, 'render.completed');
    return true;
  });
}

/** pending -> failed (which releases its quota) and its `render.failed` event, in one transaction. */
export async function recordFailed(
  deps: Pick<Deps, 'db' | 'clock' | 'tracer'>,
  accountId: string,
  id: string,
  failure: { code: string; message: string; durationMs?: number; warnings?: string[] },
  guard?: Guard,
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    if (guard && !(await guard(trx))) return false;
    const row = await failPendingRender(trx, accountId, id, {
      error_code: failure.code,
      error_message: failure.message,
      ...(failure.durationMs !== undefined ? { duration_ms: failure.durationMs } : {}),
      ...(failure.warnings ? { warnings: JSON.stringify(failure.warnings) } : {}),
    });
    if (!row) return false;
    await publishRenderEvent(deps, trx, row, 'render.failed');
    return true;
  });
}

function publishRenderEvent(
  deps: Pick<Deps, 'clock' | 'tracer'>,
  trx: Db,
  row: RenderRow,
  type: 'render.completed' | 'render.failed',
) {
  const event = { accountId: row.account_id, type, data: renderEventData(row), traceparent: deps.tracer.traceparent() };
  return publishEvent(trx, event, deps.clock.now());
}
