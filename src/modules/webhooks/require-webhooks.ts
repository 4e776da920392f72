import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { PlanName } from '../../plans.js';

/** Webhooks are a plan feature: every webhook route answers 403 WEBHOOKS_NOT_ENABLED without it. */
export function requireWebhooks(deps: Pick<Deps, 'plans'>, plan: PlanName): void {
  if (!deps.plans[plan].webhooks)
    throw new AppError('WEBHOOKS_NOT_ENABLED', `Webhooks are not enabled on the ${plan} plan`);
}
