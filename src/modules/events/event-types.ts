// The events a webhook endpoint can subscribe to. Payloads are `{ id, type, createdAt, data }`, `data`
// having the same shape as the API's object for that resource.
export const EVENT_TYPES = [
  'render.completed',
  'render.failed',
  'render-batch.completed',
  'template.created',
  'template.updated',
  'template.deleted',
  'usage.renders.threshold',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Sent to one endpoint on request (POST /v1/webhook-endpoints/:id/test); never subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Every type an event delivery can carry. */
export type EmittedEventType = EventType | typeof TEST_EVENT_TYPE;
