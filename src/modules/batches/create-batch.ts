import type { RenderAccount } from '../render-data/render-defaults.js';
import { announceUsageThresholds } from '../events/usage-threshold.js';
import { validationError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { AppError, DataValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { PlanName } from '../../plans.js';
import { lockAccount } from '../accounts/account-records.js';
import { monthOf, secondsToNextMonth } from '../accounts/quotas.js';
import { failDeadRenders } from '../renders/dead-renders.js';
import { countRendersThisMonth, insertRenders } from '../renders/render-records.js';
import {
  pendingRecord,
  prepareRender,
  type CreateRenderInput,
  type PreparedRender,
  type TemplateMemo,
} from '../renders/render-steps.js';
import { insertRenderJobs, PRIORITY } from '../render-jobs/job-records.js';
import { findTemplate } from '../templates/template-records.js';
import { insertBatch } from './batch-records.js';
import { combineMemoryMb } from './combine-budget.js';
import { getBatch } from './get-batch.js';
import { resolveSigningCertificate } from '../signing/resolve-certificate.js';

export interface CreateBatchInput {
  items: CreateRenderInput[];
  combine?: boolean;
  /** every item's default `options.sign`, and the combined file's certificate */
  sign?: boolean | string;
}

const DAY_MS = 86_400_000;

/**
 * POST /renders/batch. All or nothing: every item is validated first (a bad item refuses the whole batch
 * with its index, nothing reserved), then the quota for every item is reserved in one transaction with
 * the batch, one pending render and one durable job per item; or RENDER_LIMIT_REACHED, nothing reserved.
 */
export async function createBatch(deps: Deps, account: RenderAccount & { plan: PlanName }, input: CreateBatchInput) {
  const plan = deps.plans[account.plan];

  // 0. the size limit is the operator's (MAX_BATCH_ITEMS), so it is checked here, not in the request schema
  const max = deps.config.limits.maxBatchItems;
  if (input.items.length > max)
    throw validationError(
      { field: 'items', expected: `at most ${max} items`, received: `${input.items.length} items` },
      `A batch holds at most ${max} items; this one has ${input.items.length}`,
    );

  // 1. validate every item against its template (scoped), as a single render would be; the batch's
  //    `sign` is each item's unless the item says otherwise
  const signedWith =
    input.sign === undefined || input.sign === false
      ? null
      : (
          await resolveSigningCertificate(deps, account.id, input.sign).catch((err: unknown) => {
            throw batchSignError(err);
          })
        ).id;
  const items = input.items.map((item) =>
    signedWith && item.options?.sign === undefined ? { ...item, options: { ...item.options, sign: signedWith } } : item,
  );
  const prepared: PreparedRender[] = [];
  const memo: TemplateMemo = new Map();
  for (const [index, item] of items.entries()) {
    try {
      prepared.push(await prepareRender(deps, account, item, memo));
    } catch (err) {
      throw itemError(index, err);
    }
  }

  // 2. a combined file that could not be built within a worker's memory is refused now, not after the
  //    renders were charged
  if (input.combine) await checkCombineBudget(deps, account.id, prepared);

  // 3. reserve the whole batch at once
  const now = deps.clock.now();
  const month = monthOf(now);
  const batchId = newId('bat');
  const n = input.items.length;
  const renderIds = input.items.map(() => newId('rnd'));
  // the items' and the finishing's spans join this request's trace
  const traceparent = deps.tracer.traceparent() ?? null;
  await deps.db.transaction().execute(async (trx) => {
    await lockAccount(trx, deps.dbKind, account.id);
    await failDeadRenders(deps, trx, { accountId: account.id, month });
    const used = await countRendersThisMonth(trx, account.id, month);
    if (used + n > plan.rendersPerMonth) {
      throw new AppError(
        'RENDER_LIMIT_REACHED',
        `Monthly render limit reached: this batch needs ${n} renders and ${Math.max(0, plan.rendersPerMonth - used)} are left (${used}/${plan.rendersPerMonth} used in ${month} on the ${plan.name} plan); nothing was reserved`,
        { used, limit: plan.rendersPerMonth, requested: n },
        { 'Retry-After': String(secondsToNextMonth(now)) },
      );
    }
    await insertBatch(trx, {
      id: batchId,
      account_id: account.id,
      status: 'pending',
      item_count: n,
      combine: input.combine ? 1 : 0,
      combined_blob_key: null,
      combine_error: null,
      signed_with: input.combine ? signedWith : null,
      lease_owner: null,
      lease_expires_at: null,
      created_at: now.toISOString(),
      completed_at: null,
      expires_at: new Date(now.getTime() + plan.retentionDays * DAY_MS).toISOString(),
      deleted_at: null,
      traceparent,
    });
    await insertRenders(
      trx,
      prepared.map((p, i) =>
        pendingRecord(deps, account, p.template, {
          id: renderIds[i],
          month,
          createdAt: now,
          owner: null,
          flattened: p.flatten,
          batchId,
          batchIndex: i,
        }),
      ),
    );
    // usage.renders.threshold at 80 % and 100 %, once each per month, as for single renders
    await announceUsageThresholds(
      trx,
      { accountId: account.id, month, used: used + n, limit: plan.rendersPerMonth },
      now,
      traceparent ?? undefined,
    );
    await insertRenderJobs(
      trx,
      items.map((item, i) => ({
        render_id: renderIds[i],
        account_id: account.id,
        batch_id: batchId,
        priority: PRIORITY.batch,
        input: JSON.stringify({ templateId: item.templateId, data: item.data, options: item.options ?? {} }),
        attempts: 0,
        lease_owner: null,
        lease_expires_at: null,
        run_after: now.toISOString(),
        created_at: now.toISOString(),
        traceparent,
      })),
    );
  });
  deps.jobs.wake();
  return getBatch(deps, account.id, batchId);
}

/** A refused batch `sign`, named as the batch's field rather than an item's `options.sign`. */
function batchSignError(err: unknown): unknown {
  if (err instanceof AppError && err.code === 'VALIDATION_ERROR')
    return new AppError(err.code, err.message.replace(/^options\.sign/, 'sign'), {
      ...err.details,
      field: 'sign',
    });
  return err;
}

async function checkCombineBudget(deps: Deps, accountId: string, prepared: PreparedRender[]): Promise<void> {
  const sizes = new Map<string, number>();
  for (const p of prepared) {
    if (sizes.has(p.template.id)) continue;
    const row = await findTemplate(deps.db, accountId, p.template.id);
    sizes.set(p.template.id, row?.file_size ?? 0);
  }
  const needMb = Math.ceil(combineMemoryMb(prepared.map((p) => sizes.get(p.template.id)!)));
  const budgetMb = deps.config.limits.renderMemoryMb;
  if (needMb > budgetMb)
    throw validationError(
      {
        field: 'combine',
        expected: `a combined file within the render memory budget (${budgetMb} MB)`,
        received: `about ${needMb} MB for ${prepared.length} items`,
      },
      `This batch's combined PDF would need about ${needMb} MB to build, more than the ${budgetMb} MB of memory a render worker may use (RENDER_MEMORY_MB): send it without combine, or in smaller batches`,
    );
}

/** An item's problem, as the batch's answer: same code, the field prefixed with the item's place. */
function itemError(index: number, err: unknown): unknown {
  const where = `items[${index}]`;
  if (err instanceof DataValidationError) {
    const f = err.details.field;
    const field = f === 'data' || f.startsWith('options.') ? `${where}.${f}` : `${where}.data.${f}`;
    return new AppError('VALIDATION_ERROR', `Item ${index}: ${err.message}`, {
      ...err.details,
      field,
      index: String(index),
    });
  }
  if (err instanceof AppError)
    return new AppError(
      err.code,
      `Item ${index}: ${err.message}`,
      { ...err.details, index: String(index) },
      err.headers,
    );
  return err;
}
