import { Webhook } from 'standardwebhooks';
import { FormcastError } from './errors.js';
import type { RenderBatch, RenderDetail, Template } from './types.js';

// Receivers verify what the server signs with the same maintained `standardwebhooks` package: the
// `webhook-id`, `webhook-timestamp` and `webhook-signature` headers over the raw body.

interface EventBase<T extends string, D> {
  /** also the webhook-id header: the same on every attempt, so receivers deduplicate on it */
  id: string;
  type: T;
  createdAt: string;
  data: D;
}

/** Every event a webhook endpoint receives, by `type`. */
export type WebhookEvent =
  /** the render as GET /v1/renders/:id shows it, without a download link (ask renders.get for one) */
  | EventBase<'render.completed' | 'render.failed', RenderDetail>
  /** the batch as GET /v1/render-batches/:id shows it, without download links */
  | EventBase<'render-batch.completed', RenderBatch>
  | EventBase<'template.created' | 'template.updated' | 'template.deleted', Template>
  | EventBase<
      'usage.renders.threshold',
      { month: string; threshold: number; renders: { used: number; limit: number | null } }
    >
  | EventBase<'webhook.test', { endpointId: string; message: string }>;

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
