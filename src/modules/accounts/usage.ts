import type { Deps } from '../../deps.js';
import type { PlanName } from './plans.js';
import { monthOf } from './quotas.js';

export interface Usage {
  plan: PlanName;
  month: string;
  renders: { used: number; limit: number };
  templates: { used: number; limit: number };
  apiKeys: { used: number; limit: number };
  features: { webhooksEnabled: boolean; watermark: boolean; retentionDays: number };
}

/** Renders that count against the monthly quota: reserved or completed, deleted or not; failed ones don't. */
export async function countRendersThisMonth(db: Deps['db'], accountId: string, month: string): Promise<number> {
  const { n } = await db
    .selectFrom('renders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .where('status', 'in', ['pending', 'completed'])
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function countTemplates(db: Deps['db'], accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('templates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** API keys held: revoked keys free their slot. */
export async function countActiveKeys(db: Deps['db'], accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
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
