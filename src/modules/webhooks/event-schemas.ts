import { Type, type TSchema } from '@sinclair/typebox';
import type { WebhookEventDoc } from '../../http/openapi-document.js';
import { type Named, named, ref, stringEnum } from '../../http/openapi.js';
import { Batch } from '../batches/routes.js';
import { UsageThresholdData, WebhookTestData } from '../events/event-data.js';
import type { EmittedEventType } from '../events/event-types.js';
import { RENDER_EXAMPLE, RenderDetail } from '../renders/routes.js';
import { Template } from '../templates/template-schemas.js';

// The payload of every event type, as the OpenAPI document's top-level `webhooks` declares it: the envelope
// payload.ts writes (`{ id, type, createdAt, data }`) around the API object the event's builder stores.
// Keyed by every type the service sends, so a new event type does not compile until it is documented.

const RENDER_DATA_EXAMPLE = {
  ...RENDER_EXAMPLE,
  // as the event sends it: no link (it would expire in the outbox); GET /v1/renders/:id gives one
  downloadUrl: null,
  expiresIn: 0,
  warnings: [],
  templateVersion: 1,
};
const FAILED_RENDER_EXAMPLE = {
  ...RENDER_DATA_EXAMPLE,
  status: 'failed',
  fileSize: 0,
  sha256: null,
  error: { code: 'RENDER_FAILED', message: 'The form could not be filled' },
};

/** The body of a render.completed delivery (also the example of GET /v1/webhook-deliveries/:id). */
export const RENDER_COMPLETED_EXAMPLE = {
  id: 'evt_01a21680738b60de6c07f412',
  type: 'render.completed',
  createdAt: '2026-11-26T06:15:00.000Z',
  data: RENDER_DATA_EXAMPLE,
};

const first = (schema: TSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];

function eventSchema<T extends Named>(name: string, type: string, data: T, dataDescription: string, example: unknown) {
  return named(
    name,
    Type.Object(
      {
        id: Type.String({
          description: 'The event id, also the webhook-id header: the same on every attempt, so deduplicate on it',
        }),
        type: stringEnum([type] as const),
        createdAt: Type.String({ format: 'date-time', description: 'When the event happened' }),
        data: ref(data, dataDescription),
      },
      {
        additionalProperties: false,
        description: `The body of a ${type} delivery`,
        examples: [
          { id: RENDER_COMPLETED_EXAMPLE.id, type, createdAt: RENDER_COMPLETED_EXAMPLE.createdAt, data: example },
        ],
      },
    ),
  );
}

const RENDER_DATA =
  'The render as GET /v1/renders/{id} shows it, but `downloadUrl` null and `expiresIn` 0: GET it for a link';
const TEMPLATE_DATA = 'The template as GET /v1/templates/{id} shows it';

export const WEBHOOK_EVENTS: Record<EmittedEventType, WebhookEventDoc> = {
  'render.completed': {
    type: 'render.completed',
    schema: eventSchema('RenderCompletedEvent', 'render.completed', RenderDetail, RENDER_DATA, RENDER_DATA_EXAMPLE),
    summary: 'A render finished: its PDF can be downloaded',
    description:
      'Sent once a render, synchronous or asynchronous (including each item of a batch), is stored. ' +
      'The event carries no download link (events are kept and redelivered for longer than a link lives): ' +
      'GET /v1/renders/{id} signs a fresh one.',
  },
  'render.failed': {
    type: 'render.failed',
    schema: eventSchema('RenderFailedEvent', 'render.failed', RenderDetail, RENDER_DATA, FAILED_RENDER_EXAMPLE),
    summary: 'A render failed',
    description:
      'Sent when a render, synchronous or asynchronous (including each item of a batch), ends failed; ' +
      '`data.error` has its code and message. The failed render is kept: GET /v1/renders/{id} shows it.',
  },
  'render-batch.completed': {
    type: 'render-batch.completed',
    schema: eventSchema(
      'RenderBatchCompletedEvent',
      'render-batch.completed',
      Batch,
      'The batch as GET /v1/render-batches/{id} shows it, but without download links (GET it for fresh ones)',
      { ...(first(Batch) as object), combinedDownloadUrl: null, zipDownloadUrl: null, expiresIn: 0 },
    ),
    summary: "A batch's items have all finished",
    description:
      'Sent once every item of a batch has completed or failed and, with `combine`, the combined PDF is built ' +
      '(or `combineError` says why not). Each item also sent its own render.completed or render.failed.',
  },
  'template.created': {
    type: 'template.created',
    schema: eventSchema('TemplateCreatedEvent', 'template.created', Template, TEMPLATE_DATA, first(Template)),
    summary: 'A template was uploaded',
    description: 'Sent when POST /v1/templates stores a new template (not on an idempotent replay).',
  },
  'template.updated': {
    type: 'template.updated',
    schema: eventSchema('TemplateUpdatedEvent', 'template.updated', Template, TEMPLATE_DATA, {
      ...(first(Template) as object),
      version: 2,
    }),
    summary: 'A template changed',
    description:
      'Sent when a change to a template commits (its name, description, frozen state, PDF or fields); ' +
      '`data` is the template as it now is.',
  },
  'template.deleted': {
    type: 'template.deleted',
    schema: eventSchema(
      'TemplateDeletedEvent',
      'template.deleted',
      Template,
      'The template as it was just before its deletion',
      first(Template),
    ),
    summary: 'A template was deleted',
    description: 'Sent when DELETE /v1/templates/{id} removes a template; `data` is the template as it last was.',
  },
  'usage.renders.threshold': {
    type: 'usage.renders.threshold',
    schema: eventSchema(
      'UsageRendersThresholdEvent',
      'usage.renders.threshold',
      UsageThresholdData,
      "The month's use when the threshold was crossed",
      first(UsageThresholdData),
    ),
    summary: "The month's renders reached 80 % or 100 % of the quota",
    description:
      "Sent at most once per threshold (80 and 100 percent of the plan's renders per month), account and UTC " +
      'month, when a render or batch reserves the render that reaches it.',
  },
  'webhook.test': {
    type: 'webhook.test',
    schema: eventSchema(
      'WebhookTestEvent',
      'webhook.test',
      WebhookTestData,
      'Which endpoint was tested',
      first(WebhookTestData),
    ),
    summary: 'A test event, asked for with POST /v1/webhook-endpoints/{id}/test',
    description:
      'Sent to that one endpoint only, even when it is disabled or subscribed to no matching event; ' +
      'never sent otherwise, and not subscribable.',
  },
};

/** The event payload schemas and the data schemas of their own, for app.addSchema(). */
export const eventComponents: Named[] = [
  UsageThresholdData,
  WebhookTestData,
  ...Object.values(WEBHOOK_EVENTS).map((e) => e.schema),
];
