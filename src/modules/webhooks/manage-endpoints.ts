import type { PageRequest } from '../../adapters/db/paged-list.js';
import type { Deps } from '../../deps.js';
import { AppError, validationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { PlanName } from '../../plans.js';
import { lockAccount } from '../accounts/account-records.js';
import { EVENT_TYPES } from '../events/event-types.js';
import { cancelPendingDeliveries, deleteEndpointDeliveries } from './delivery-records.js';
import { deleteEndpointLog, listEndpointLogRows, logEndpoint } from './endpoint-log-records.js';
import {
  countEndpoints,
  deleteEndpointRow,
  type EndpointChanges,
  insertEndpoint,
  listEndpointRows,
  loadEndpoint,
  rotateEndpointSecretRow,
  updateEndpointRow,
} from './endpoint-records.js';
import { requireWebhooks } from './require-webhooks.js';
import { sealSecret } from './secret-box.js';
import { newWebhookSecret, PREVIOUS_SECRET_MS } from './secrets.js';
import { toEndpointView, toLogView, type WebhookEndpointView } from './webhook-views.js';

// Webhook endpoints of an account: create (the secret shown once), list, read, change, delete, rotate
// the secret. Every use case is scoped by account and refused on plans without webhooks.

type EndpointDeps = Pick<Deps, 'db' | 'dbKind' | 'clock' | 'plans' | 'webhookSender' | 'metrics' | 'signingKey'>;
type Account = { id: string; plan: PlanName };

export interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

const MAX_DESCRIPTION = 2000;

async function checkUrl(deps: Pick<Deps, 'webhookSender'>, url: string): Promise<string> {
  const problem = await deps.webhookSender.checkUrl(url);
  if (problem)
    throw validationError(
      { field: 'url', expected: 'an https URL of a public host', received: JSON.stringify(url.slice(0, 200)) },
      `Invalid webhook URL: ${problem}`,
    );
  return url;
}

/** A non-empty list of known event types, or ["*"] for every type (now and future ones). */
function checkEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  const bad = unique.find((e) => e !== '*' && !(EVENT_TYPES as readonly string[]).includes(e));
  const received = JSON.stringify(bad ?? events).slice(0, 200);
  if (bad !== undefined || unique.length === 0 || (unique.includes('*') && unique.length > 1))
    throw validationError({ field: 'events', expected: `["*"] or a list of ${EVENT_TYPES.join(', ')}`, received });
  return unique;
}

function checkDescription(description: string): string {
  if ([...description].length > MAX_DESCRIPTION)
    throw validationError({
      field: 'description',
      expected: `at most ${MAX_DESCRIPTION} characters`,
      received: `${[...description].length} characters`,
    });
  return description;
}

export async function createEndpoint(
  deps: EndpointDeps,
  account: Account,
  input: EndpointInput & { url: string },
): Promise<WebhookEndpointView & { secret: string }> {
  // 1. plan feature, then the input (the URL's host is resolved and judged)
  requireWebhooks(deps, account.plan);
  const limit = deps.plans[account.plan].webhookEndpoints;
  const events = checkEvents(input.events ?? ['*']);
  const description = checkDescription(input.description ?? '');
  const url = await checkUrl(deps, input.url);

  // 2. exact limit check and insert in one transaction (the account row serialises concurrent creations)
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const row = {
    id: newId('whk'),
    account_id: account.id,
    url,
    description,
    events: JSON.stringify(events),
    enabled: input.enabled === false ? 0 : 1,
    disabled_reason: null,
    secret: sealSecret(deps.signingKey, secret), // stored sealed, shown once
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await deps.db.transaction().execute(async (trx) => {
    await lockAccount(trx, deps.dbKind, account.id);
    const used = await countEndpoints(trx, account.id);
    if (used >= limit)
      throw new AppError(
        'WEBHOOK_ENDPOINT_LIMIT_REACHED',
        `Webhook endpoint limit reached: ${used}/${limit} endpoints on the ${account.plan} plan`,
        { used, limit },
      );
    await insertEndpoint(trx, row);
    await logEndpoint(
      trx,
      { endpointId: row.id, accountId: account.id, type: 'created', message: `created for ${url}` },
      now,
    );
  });
  return { ...toEndpointView(row, now), secret };
}

/** Newest first. */
export async function listEndpoints(deps: EndpointDeps, account: Account, page: PageRequest) {
  requireWebhooks(deps, account.plan);
  const { rows, meta } = await listEndpointRows(deps.db, account.id, page);
  const now = deps.clock.now();
  return { data: rows.map((r) => toEndpointView(r, now)), meta };
}

/** The endpoint's own log, newest first. */
export async function listEndpointLog(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  endpointId: string,
  page: PageRequest,
) {
  await loadEndpoint(deps, accountId, endpointId);
  const { rows, meta } = await listEndpointLogRows(deps.db, accountId, endpointId, page);
  return { data: rows.map(toLogView), meta };
}

export async function getEndpoint(deps: EndpointDeps, account: Account, id: string): Promise<WebhookEndpointView> {
  requireWebhooks(deps, account.plan);
  return toEndpointView(await loadEndpoint(deps, account.id, id), deps.clock.now());
}

/**
 * PATCH: any of url, events, description, enabled (at least one). Disabling stops the deliveries still
 * scheduled (they can be retried later); enabling clears a disabled reason and the failure streak.
 */
export async function updateEndpoint(
  deps: EndpointDeps,
  account: Account,
  id: string,
  patch: EndpointInput,
): Promise<WebhookEndpointView> {
  requireWebhooks(deps, account.plan);
  const keys = (['url', 'events', 'description', 'enabled'] as const).filter((k) => patch[k] !== undefined);
  if (keys.length === 0)
    throw validationError({
      field: 'body',
      expected: 'at least one of url, events, description, enabled',
      received: 'none',
    });
  const changes: EndpointChanges = {};
  if (patch.url !== undefined) changes.url = await checkUrl(deps, patch.url);
  if (patch.events !== undefined) changes.events = JSON.stringify(checkEvents(patch.events));
  if (patch.description !== undefined) changes.description = checkDescription(patch.description);
  const now = deps.clock.now();
  changes.updated_at = now.toISOString();

  let stopped = 0;
  await deps.db.transaction().execute(async (trx) => {
    const current = await loadEndpoint({ db: trx }, account.id, id);
    let logType: 'updated' | 'disabled' | 'enabled' = 'updated';
    if (patch.enabled === false && current.enabled) {
      Object.assign(changes, { enabled: 0, disabled_reason: null });
      stopped = await cancelPendingDeliveries(trx, id, 'endpoint disabled', now);
      logType = 'disabled';
    } else if (patch.enabled === true && !current.enabled) {
      Object.assign(changes, { enabled: 1, disabled_reason: null, failing_since: null });
      logType = 'enabled';
    }
    await updateEndpointRow(trx, account.id, id, changes);
    const message =
      logType === 'updated' ? `changed: ${keys.join(', ')}` : `${logType} by the account (changed: ${keys.join(', ')})`;
    await logEndpoint(trx, { endpointId: id, accountId: account.id, type: logType, message }, now);
  });
  for (let i = 0; i < stopped; i++) deps.metrics.webhookDelivery('failed');
  return toEndpointView(await loadEndpoint(deps, account.id, id), now);
}

/** DELETE: the endpoint, its deliveries and its log go together; the events themselves stay. */
export async function deleteEndpoint(deps: EndpointDeps, account: Account, id: string): Promise<void> {
  requireWebhooks(deps, account.plan);
  await deps.db.transaction().execute(async (trx) => {
    await loadEndpoint({ db: trx }, account.id, id);
    await deleteEndpointDeliveries(trx, account.id, id);
    await deleteEndpointLog(trx, account.id, id);
    await deleteEndpointRow(trx, account.id, id);
  });
}

/**
 * A new secret, shown once in the answer; the one it replaces keeps signing (both signatures are sent)
 * for 24 hours. Rotating again within those 24 hours drops the oldest secret at once.
 */
export async function rotateEndpointSecret(
  deps: EndpointDeps,
  account: Account,
  id: string,
): Promise<WebhookEndpointView & { secret: string }> {
  requireWebhooks(deps, account.plan);
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  await deps.db.transaction().execute(async (trx) => {
    const current = await loadEndpoint({ db: trx }, account.id, id);
    const until = new Date(now.getTime() + PREVIOUS_SECRET_MS).toISOString();
    // two rotations at once: one wins, the other's secret never signs
    const rotated = await rotateEndpointSecretRow(trx, account.id, id, {
      currentSecret: current.secret,
      newSecret: sealSecret(deps.signingKey, secret),
      previousUntil: until,
      updatedAt: now.toISOString(),
    });
    if (!rotated)
      throw new AppError('CONFLICT', `The secret of webhook endpoint "${id}" was rotated by another request; retry`);
    await logEndpoint(
      trx,
      {
        endpointId: id,
        accountId: account.id,
        type: 'secret.rotated',
        message: `secret rotated; the previous one signs until ${until}`,
      },
      now,
    );
  });
  return { ...toEndpointView(await loadEndpoint(deps, account.id, id), now), secret };
}
