import { Type, type Static } from '@sinclair/typebox';
import { named } from '../../http/openapi.js';

// The `data` of the events that carry no API object of their own. Their builders are typed from these
// schemas, and the OpenAPI document's webhooks (webhooks/event-schemas.ts) point at them: the two cannot drift.

export const UsageThresholdData = named(
  'UsageThresholdData',
  Type.Object(
    {
      month: Type.String({ description: 'The UTC month, YYYY-MM', pattern: '^\\d{4}-\\d{2}$' }),
      threshold: Type.Integer({ enum: [80, 100], description: 'Percent of the monthly quota reached: 80 or 100' }),
      renders: Type.Object(
        {
          used: Type.Integer({ description: 'Renders counted this month when the threshold was crossed' }),
          limit: Type.Integer({ description: "The plan's renders per month" }),
        },
        { additionalProperties: false },
      ),
    },
    {
      additionalProperties: false,
      examples: [{ month: '2026-11', threshold: 80, renders: { used: 400, limit: 500 } }],
    },
  ),
);
export type UsageThresholdData = Static<typeof UsageThresholdData>;

export const WebhookTestData = named(
  'WebhookTestData',
  Type.Object(
    {
      endpointId: Type.String({ description: 'The endpoint the test was sent to' }),
      message: Type.String(),
    },
    {
      additionalProperties: false,
      examples: [{ endpointId: 'whk_01a21680738b60de6c07f410', message: 'A test event sent from the formcast API' }],
    },
  ),
);
export type WebhookTestData = Static<typeof WebhookTestData>;
