import { Webhook } from 'standardwebhooks';
import { FormcastError } from './errors.js';
import type { components } from './generated/schema.js';

type Schemas = components['schemas'];

// Receivers verify what the server signs with the same maintained `standardwebhooks` package: the
// `webhook-id`, `webhook-timestamp` and `webhook-signature` headers over the raw body.

/**
 * Every event a webhook endpoint receives, by `type`: `{ id, type, createdAt, data }`, as the document's
 * `webhooks` declare them (`id` is also the webhook-id header, the same on every attempt: deduplicate on it).
 * Renders and batches come without download links; GET them for fresh ones.
 */
export type WebhookEvent =
  | Schemas['RenderCompletedEvent']
  | Schemas['RenderFailedEvent']
  | Schemas['RenderBatchCompletedEvent']
  | Schemas['TemplateCreatedEvent']
  | Schemas['TemplateUpdatedEvent']
  | Schemas['TemplateDeletedEvent']
  | Schemas['UsageRendersThresholdEvent']
  | Schemas['WebhookTestEvent'];

export type WebhookEventType = WebhookEvent['type'];

/** Request headers as a fetch Request, Node's IncomingMessage or a plain object carries them. */
export type HeadersInput = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: HeadersInput): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
  }
  return out;
}

/**
 * Check a delivery's signature and age (five minutes either way) and answer its event. `payload` is the
 * raw body, exactly as received (not parsed and re-serialised); `secret` the endpoint's whsec_... secret,
 * or several (any one verifying is enough). Throws FormcastError INVALID_WEBHOOK_SIGNATURE otherwise:
 * answer the sender 400 then.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: HeadersInput,
  secret: string | readonly string[],
): WebhookEvent {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const record = headerRecord(headers);
  let reason = 'no secret given';
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    try {
      return new Webhook(s).verify(body, record) as WebhookEvent;
    } catch (err) {
      reason = (err as Error).message;
    }
  }
  throw new FormcastError(
    `Webhook signature not verified: ${reason}`,
    400,
    'INVALID_WEBHOOK_SIGNATURE',
    undefined,
    record['webhook-id'],
    undefined,
  );
}
