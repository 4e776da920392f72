import type { Deps } from '../../deps.js';
import type { PlanName } from '../../plans.js';
import { monthOf } from './quotas.js';
import { countActiveKeys } from './api-key-records.js';
import { countRendersThisMonth } from '../renders/render-records.js';
import { countTemplates } from '../templates/template-records.js';

export interface Usage {
  plan: PlanName;
  month: string;
  renders: { used: number; limit: number };
  templates: { used: number; limit: number };
  apiKeys: { used: number; limit: number };
  features: { webhooksEnabled: boolean; watermark: boolean; retentionDays: number };
}

export async function getUsage(
  deps: Pick<Deps, 'db' | 'clock' | 'plans'>,
  account: { id: string; plan: PlanName },
): Promise<Usage> {
  const plan = deps.plans[account.plan];
  const month = monthOf(deps.clock.now());
  const [renders, templates, keys] = await Promise.all([
    countRendersThisMonth(deps.db, account.id, month),
    countTemplates(deps.db, account.id),
    countActiveKeys(deps.db, account.id),
  ]);
  return {
    plan: plan.name,
    month,
    renders: { used: renders, limit: plan.rendersPerMonth },
    templates: { used: templates, limit: plan.templates },
    apiKeys: { used: keys, limit: plan.apiKeys },
    features: { webhooksEnabled: plan.webhooks, watermark: plan.watermark, retentionDays: plan.retentionDays },
  };
}
