import { BASE, linkClick } from '../../router.js';

/** The Webhooks page of an account whose plan has no webhooks: what they are and where the plan is. */
export function NotOnPlan() {
  return (
    <section>
      <h1>Webhooks</h1>
      <div class="notice" role="status" data-testid="webhooks-plan">
        <p>
          <strong>Webhooks are available on Pro and Business plans.</strong>
        </p>
        <p>
          With webhooks, formcast posts an event to your server when a render completes or fails, a template changes or
          usage passes a threshold. Your current plan does not include them; see{' '}
          <a href={`${BASE}/usage`} onClick={linkClick}>
            Usage
          </a>{' '}
          for your plan.
        </p>
      </div>
    </section>
  );
}
