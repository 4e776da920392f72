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
