import { readFileSync } from 'node:fs';

// Plan limits. Defaults are contract.md's table; an operator may override any value per plan in a
// JSON file (PLANS_FILE), e.g. {"Free": {"rendersPerMonth": 500}}. Unknown plans or keys are refused
// at start-up so a typo never silently falls back to a default.

export const PLAN_NAMES = ['Free', 'Pro', 'Business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  name: PlanName;
  rendersPerMonth: number;
  templates: number;
  apiKeys: number;
  maxUploadBytes: number;
  watermark: boolean;
  retentionDays: number;
  webhooks: boolean;
  /** webhook endpoints an account may hold (only where `webhooks` is true) */
  webhookEndpoints: number;
  requestsPerMinute: number;
}

const MB = 1_048_576;

export const DEFAULT_PLANS: Record<PlanName, Plan> = {
  Free: {
    name: 'Free',
    rendersPerMonth: 100,
    templates: 5,
    apiKeys: 2,
    maxUploadBytes: 10 * MB,
    watermark: true,
    retentionDays: 7,
    webhooks: false,
    webhookEndpoints: 0,
    requestsPerMinute: 300,
  },
  Pro: {
    name: 'Pro',
    rendersPerMonth: 5_000,
    templates: 100,
    apiKeys: 10,
    maxUploadBytes: 25 * MB,
    watermark: false,
    retentionDays: 30,
    webhooks: true,
    webhookEndpoints: 10,
    requestsPerMinute: 1_200,
  },
  Business: {
    name: 'Business',
    rendersPerMonth: 50_000,
    templates: 1_000,
    apiKeys: 50,
    maxUploadBytes: 50 * MB,
    watermark: false,
    retentionDays: 90,
    webhooks: true,
    webhookEndpoints: 50,
    requestsPerMinute: 6_000,
  },
};

export type Plans = Record<PlanName, Plan>;

export function isPlanName(v: string): v is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(v);
}

const NUMERIC_KEYS = [
  'rendersPerMonth',
  'templates',
  'apiKeys',
  'maxUploadBytes',
  'retentionDays',
  'requestsPerMinute',
  'webhookEndpoints',
] as const;
const BOOLEAN_KEYS = ['watermark', 'webhooks'] as const;

/** Merge overrides into the defaults; throws with every problem listed. */
export function resolvePlans(overrides: unknown): Plans {
  const plans: Plans = structuredClone(DEFAULT_PLANS);
  if (overrides === undefined) return plans;
  const problems: string[] = [];
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new Error('plans file must hold a JSON object keyed by plan name');
  }
  for (const [planName, values] of Object.entries(overrides)) {
    if (!isPlanName(planName)) {
      problems.push(`unknown plan "${planName}" (plans are ${PLAN_NAMES.join(', ')})`);
      continue;
    }
    if (typeof values !== 'object' || values === null) {
      problems.push(`${planName} must be an object`);
      continue;
    }
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      if ((NUMERIC_KEYS as readonly string[]).includes(key)) {
        if (!Number.isSafeInteger(value) || (value as number) < 0)
          problems.push(`${planName}.${key} must be a non-negative integer`);
        else (plans[planName] as unknown as Record<string, unknown>)[key] = value;
      } else if ((BOOLEAN_KEYS as readonly string[]).includes(key)) {
        if (typeof value !== 'boolean') problems.push(`${planName}.${key} must be a boolean`);
        else (plans[planName] as unknown as Record<string, unknown>)[key] = value;
      } else {
        problems.push(
          `${planName}.${key} is not a plan setting (settings: ${[...NUMERIC_KEYS, ...BOOLEAN_KEYS].join(', ')})`,
        );
      }
    }
  }
  if (problems.length) throw new Error(`invalid plans file: ${problems.join('; ')}`);
  return plans;
}

export function loadPlans(file: string | undefined): Plans {
  if (!file) return resolvePlans(undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`PLANS_FILE "${file}" could not be read as JSON: ${(err as Error).message}`);
  }
  try {
    return resolvePlans(parsed);
  } catch (err) {
    throw new Error(`PLANS_FILE "${file}": ${(err as Error).message}`);
  }
}
