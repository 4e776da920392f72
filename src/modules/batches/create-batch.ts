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
import { insertBatch } from './batch-records.js';
import { getBatch } from './get-batch.js';

export interface CreateBatchInput {
  items: CreateRenderInput[];
  combine?: boolean;
}

const DAY_MS = 86_400_000;

/**
 * POST /renders/batch. All or nothing: every item is validated first (a bad item refuses the whole batch
 * with its index, nothing reserved), then the quota for every item is reserved in one transaction with
 * the batch, one pending render and one durable job per item; or RENDER_LIMIT_REACHED, nothing reserved.
 */
export async function createBatch(deps: Deps, account: { id: string; plan: PlanName }, input: CreateBatchInput) {
  const plan = deps.plans[account.plan];

  // 0. the size limit is the operator's (MAX_BATCH_ITEMS), so it is checked here, not in the request schema
  const max = deps.config.limits.maxBatchItems;
  if (input.items.length > max)
    throw validationError(
      { field: 'items', expected: `at most ${max} items`, received: `${input.items.length} items` },
      `A batch holds at most ${max} items; this one has ${input.items.length}`,
    );

  // 1. validate every item against its template (scoped), as a single render would be
  const prepared: PreparedRender[] = [];
  const memo: TemplateMemo = new Map();
  for (const [index, item] of input.items.entries()) {
    try {
      prepared.push(await prepareRender(deps, account, item, memo));
    } catch (err) {
      throw itemError(index, err);
    }
  }

  // 2. reserve the whole batch at once
  const now = deps.clock.now();
  const month = monthOf(now);
  const batchId = newId('bat');
  const n = input.items.length;
  const renderIds = input.items.map(() => newId('rnd'));
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
      lease_owner: null,
      lease_expires_at: null,
      created_at: now.toISOString(),
      completed_at: null,
      expires_at: new Date(now.getTime() + plan.retentionDays * DAY_MS).toISOString(),
      deleted_at: null,
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
    );
    await insertRenderJobs(
      trx,
      input.items.map((item, i) => ({
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
      })),
    );
  });
  deps.jobs.wake();
  return getBatch(deps, account.id, batchId);
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
