import type { Context } from './context.js';
import { unwrap } from './transport.js';
import type {
  Page,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookDeliveryWithPayload,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointLogEntry,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
} from './types.js';

export interface PageQuery {
  page?: number;
  limit?: number;
}

/** client.webhooks: endpoints (their secrets, test events, log) and their deliveries. */
export function webhooksApi({ raw }: Context) {
  const path = (id: string) => ({ params: { path: { id } } });
  const endpoints = {
    /** A new endpoint (https, public host); its signing secret is in this answer only. */
    create: (body: WebhookEndpointCreate): Promise<WebhookEndpointWithSecret> =>
      unwrap(raw.POST('/v1/webhook-endpoints', { body })).then((r) => r.data),
    list: (query: PageQuery = {}): Promise<Page<WebhookEndpoint>> =>
      unwrap(raw.GET('/v1/webhook-endpoints', { params: { query } })),
    get: (id: string): Promise<WebhookEndpoint> =>
      unwrap(raw.GET('/v1/webhook-endpoints/{id}', path(id))).then((r) => r.data),
    /** Change the URL, events, description; `enabled: true` turns a disabled endpoint back on. */
    update: (id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint> =>
      unwrap(raw.PATCH('/v1/webhook-endpoints/{id}', { ...path(id), body: patch })).then((r) => r.data),
    delete: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/webhook-endpoints/{id}', path(id))).then(() => undefined),
    /** A new secret, in this answer only; the previous one keeps signing for 24 hours beside it. */
    rotateSecret: (id: string): Promise<WebhookEndpointWithSecret> =>
      unwrap(raw.POST('/v1/webhook-endpoints/{id}/rotate-secret', path(id))).then((r) => r.data),
    /** Send a `webhook.test` event to the endpoint now; answers its delivery. */
    sendTest: (id: string): Promise<WebhookDelivery> =>
      unwrap(raw.POST('/v1/webhook-endpoints/{id}/test', path(id))).then((r) => r.data),
    /** The endpoint's deliveries, newest first, optionally of one status. */
    deliveries: (id: string, query: PageQuery & { status?: WebhookDeliveryStatus } = {}) =>
      unwrap(raw.GET('/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id }, query } })) as Promise<
        Page<WebhookDelivery>
      >,
    /** What happened to the endpoint: created, updated, secret.rotated, disabled, enabled. */
    log: (id: string, query: PageQuery = {}): Promise<Page<WebhookEndpointLogEntry>> =>
      unwrap(raw.GET('/v1/webhook-endpoints/{id}/log', { params: { path: { id }, query } })),
  };
  const deliveries = {
    /** A delivery with the exact body it sends (`payload`). */
    get: (id: string): Promise<WebhookDeliveryWithPayload> =>
      unwrap(raw.GET('/v1/webhook-deliveries/{id}', path(id))).then((r) => r.data),
    /** Send it again now, with the same webhook-id (receivers deduplicate on it). */
    retry: (id: string): Promise<WebhookDelivery> =>
      unwrap(raw.POST('/v1/webhook-deliveries/{id}/retry', path(id))).then((r) => r.data),
  };
  return { endpoints, deliveries };
}
