import type { Deps } from '../../deps.js';
import type { Clock } from '../../ports/clock.js';
import type { WebhookResponse } from '../../ports/webhook-sender.js';
import { cancelPendingDeliveries, type ClaimedDelivery, claimState, recordAttemptOutcome } from './delivery-records.js';
import { logEndpoint } from './endpoint-log-records.js';
import {
  clearFailingSince,
  disableEndpoint,
  endpointHealth,
  loadAttemptContext,
  lockEndpoint,
  startFailingSince,
} from './endpoint-records.js';
import { eventPayload } from './payload.js';
import { nextRetryDelayMs } from './retry-schedule.js';
import { signatureHeader, signingSecrets } from './secrets.js';
import type { AttemptRecord } from './webhook-views.js';

// One attempt of one claimed delivery: sign, send, record the outcome and schedule what follows.

export type AttemptDeps = Pick<
  Deps,
  'db' | 'dbKind' | 'clock' | 'plans' | 'config' | 'metrics' | 'log' | 'webhookSender' | 'signingKey'
> & {
  /** the time written into webhook-timestamp: the receiver compares it with its own clock */
  wallClock: Clock;
  random: () => number;
};

/** Attempts remembered per delivery (manual retries can add more than the schedule's ten). */
const ATTEMPT_LOG_SIZE = 20;
const RESPONSE_EXCERPT = 500;

/** What became of an attempt (for its span): the answer's status, and the delivery's state after it. */
export interface AttemptSummary {
  statusCode: number | null;
  /** pending: a retry is scheduled; lost: another claim took the delivery over meanwhile */
  outcome: 'succeeded' | 'failed' | 'pending' | 'lost';
}

export async function attemptDelivery(
  deps: AttemptDeps,
  claimed: ClaimedDelivery,
  token: string,
): Promise<AttemptSummary | undefined> {
  const startedAt = deps.clock.now();
  // 1. what to send: the event, the endpoint and its secrets, the account's plan
  const context = await loadAttemptContext(deps.db, {
    endpointId: claimed.endpoint_id,
    accountId: claimed.account_id,
    eventId: claimed.event_id,
  });
  if (!context) return undefined; // the endpoint was deleted meanwhile, with its deliveries

  // 2. send, unless the plan lost its webhooks (a downgrade): then the delivery ends unsent
  let response: WebhookResponse;
  const plan = deps.plans[context.plan as keyof Deps['plans']];
  const secrets = signingSecrets(context, startedAt, deps.signingKey);
  if (!plan?.webhooks) {
    response = { statusCode: null, error: 'webhooks are not enabled on the plan', durationMs: 0, responseBody: '' };
  } else if (secrets.length === 0) {
    // sealed under another key (SIGNING_SECRET changed, or differs between instances): never send unsigned
    const error = "the endpoint's secret cannot be opened with this SIGNING_SECRET; rotate the secret";
    response = { statusCode: null, error, durationMs: 0, responseBody: '' };
  } else {
    const payload = eventPayload({ ...context, id: context.eventId });
    const timestamp = deps.wallClock.now();
    response = await deps.webhookSender.send({
      url: context.url,
      body: payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'formcast-webhooks/1',
        'webhook-id': context.eventId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, context.eventId, timestamp, payload),
      },
    });
    const ok = response.error === null && response.statusCode !== null && response.statusCode < 300;
    deps.metrics.webhookAttempt(
      ok ? 'success' : response.statusCode === null ? 'network_error' : 'http_error',
      response.durationMs / 1000,
    );
  }
  const outcome = await recordAttempt(deps, claimed, token, startedAt, response, plan?.webhooks ?? false);
  return { statusCode: response.statusCode, outcome };
}

async function recordAttempt(
  deps: AttemptDeps,
  claimed: ClaimedDelivery,
  token: string,
  startedAt: Date,
  response: WebhookResponse,
  planAllows: boolean,
): Promise<AttemptSummary['outcome']> {
  const now = deps.clock.now();
  const ok = response.error === null && response.statusCode !== null && response.statusCode < 300;
  const record: AttemptRecord = {
    at: startedAt.toISOString(),
    statusCode: response.statusCode,
    durationMs: response.durationMs,
    error:
      response.error ??
      (ok ? null : `HTTP ${response.statusCode}: ${response.responseBody.slice(0, RESPONSE_EXCERPT)}`),
  };
  const delay = ok || !planAllows ? null : nextRetryDelayMs(claimed.attempts, deps.random);
  let final: 'succeeded' | 'failed' | undefined;
  let lost = false;
  await deps.db.transaction().execute(async (trx) => {
    const current = await claimState(trx, claimed.id);
    if (!current || current.claimed_by !== token) {
      lost = true; // our lease ran out and another claim took over
      return;
    }
    // Attempts finishing together on one endpoint take turns here, so that a disabling (and the
    // cancelling of its deliveries) sees every other attempt either finished or not yet recorded.
    await lockEndpoint(trx, deps.dbKind, claimed.endpoint_id);
    const endpoint = await endpointHealth(trx, claimed.endpoint_id);
    const log = [...(JSON.parse(current.attempt_log) as AttemptRecord[]), record].slice(-ATTEMPT_LOG_SIZE);
    const retry = delay !== null && Boolean(endpoint?.enabled);
    final = ok ? 'succeeded' : retry ? undefined : 'failed';
    await recordAttemptOutcome(trx, claimed.id, token, {
      status: final ?? 'pending',
      next_attempt_at: retry ? new Date(now.getTime() + delay!).toISOString() : null,
      last_status_code: response.statusCode,
      last_error: record.error,
      last_duration_ms: response.durationMs,
      attempt_log: JSON.stringify(log),
      completed_at: final ? now.toISOString() : null,
    });
    if (!endpoint || !planAllows) return;
    if (ok) {
      if (endpoint.failing_since) await clearFailingSince(trx, claimed.endpoint_id);
      return;
    }
    await noteFailure(deps, trx, claimed, endpoint, now);
  });
  if (final) deps.metrics.webhookDelivery(final);
  return lost ? 'lost' : (final ?? 'pending');
}

/** A failed attempt extends the endpoint's failure streak; a streak of WEBHOOK_DISABLE_AFTER_HOURS disables it. */
async function noteFailure(
  deps: AttemptDeps,
  trx: Deps['db'],
  claimed: ClaimedDelivery,
  endpoint: { enabled: number; failing_since: string | null },
  now: Date,
): Promise<void> {
  if (!endpoint.failing_since) {
    await startFailingSince(trx, claimed.endpoint_id, now);
    return;
  }
  const hours = deps.config.webhooks.disableAfterHours;
  if (!endpoint.enabled || Date.parse(endpoint.failing_since) > now.getTime() - hours * 3600_000) return;
  if (!(await disableEndpoint(trx, claimed.endpoint_id, 'failing', now))) return;
  const stopped = await cancelPendingDeliveries(trx, claimed.endpoint_id, 'endpoint disabled after failing', now);
  for (let i = 0; i < stopped; i++) deps.metrics.webhookDelivery('failed');
  await logEndpoint(
    trx,
    {
      endpointId: claimed.endpoint_id,
      accountId: claimed.account_id,
      type: 'disabled',
      message: `disabled by the service: every attempt has failed since ${endpoint.failing_since} (over ${hours} h); PATCH {"enabled": true} to resume`,
    },
    now,
  );
  deps.metrics.webhookEndpointDisabled();
  deps.log.warn({ endpointId: claimed.endpoint_id, failingSince: endpoint.failing_since }, 'webhook endpoint disabled');
}
