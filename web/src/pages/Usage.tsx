import { useEffect, useState } from 'preact/hooks';
import { api, type Usage } from '../api.js';
import { ErrorText } from '../components/Alert.js';

function Bar(props: { label: string; used: number; limit: number }) {
  const pct = props.limit > 0 ? Math.min(100, (props.used / props.limit) * 100) : 0;
  const level = pct >= 100 ? 'full' : pct >= 80 ? 'high' : 'ok';
  const id = `bar-${props.label.replace(/\W+/g, '-')}`;
  return (
    <div class="usage-bar">
      <div class="usage-label">
        <span id={id}>{props.label}</span>
        <span>
          {props.used.toLocaleString()} / {props.limit.toLocaleString()}
        </span>
      </div>
      <div
        class={`bar bar-${level}`}
        role="progressbar"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={props.limit}
        aria-valuenow={props.used}
        aria-valuetext={`${props.used} of ${props.limit}`}
      >
        <div class="bar-fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

export function UsagePage() {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.get<{ data: Usage }>('/renders/usage').then((u) => setUsage(u.data), setError);
  }, []);
  return (
    <section>
      <h1>Usage</h1>
      <ErrorText error={error} />
      {usage && (
        <>
          <p class="lead">
            {usage.plan} plan · {usage.month} (UTC month; the render count starts again on the 1st)
          </p>
          <div class="card usage">
            <Bar label="Renders this month" used={usage.renders.used} limit={usage.renders.limit} />
            <Bar label="Templates" used={usage.templates.used} limit={usage.templates.limit} />
            <Bar label="API keys" used={usage.apiKeys.used} limit={usage.apiKeys.limit} />
          </div>
          <dl class="features">
            <dt>Watermark on renders</dt>
            <dd>{usage.features.watermark ? 'yes' : 'no'}</dd>
            <dt>Renders kept for</dt>
            <dd>{usage.features.retentionDays} days</dd>
            <dt>Webhooks</dt>
            <dd>{usage.features.webhooksEnabled ? 'enabled' : 'not on this plan'}</dd>
          </dl>
        </>
      )}
    </section>
  );
}
