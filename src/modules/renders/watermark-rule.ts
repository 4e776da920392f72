import type { Plan } from '../../plans.js';

const WATERMARK_TEXT = 'formcast · Free plan';

/**
 * contract.md: `auto` applies the plan's rule; a plan with watermark forces it even when the request says
 * false (with a warning); `true` always adds it.
 */
export function resolveWatermark(plan: Plan, requested: boolean | 'auto'): { text?: string; warning?: string } {
  if (plan.watermark) {
    return {
      text: WATERMARK_TEXT,
      warning:
        requested === false
          ? `The ${plan.name} plan always adds a watermark; "watermark": false was ignored`
          : undefined,
    };
  }
  return requested === true ? { text: 'formcast' } : {};
}
