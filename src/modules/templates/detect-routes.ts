import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse, IdParams, type Named, named, ref, stringEnum } from '../../http/openapi.js';
import { detectMissingFields } from './detect-template-fields.js';
import { Template } from './template-schemas.js';

// Field detection over HTTP (glue only): the schema of a detection, the answer of POST /templates with
// detectFields=true, and POST /templates/:id/detect-fields.

const Rect = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: '[x1, y1, x2, y2] in PDF points of the page (as pdfMeta.rect)',
});

export const Detection = named(
  'Detection',
  Type.Object(
    {
      key: Type.String({ description: "the new field's render key and PDF name, made from its label" }),
      type: stringEnum(['text', 'multiline', 'comb', 'date', 'checkbox', 'radio', 'signature']),
      page: Type.Integer({ description: '1-based page' }),
      rect: Rect,
      label: Type.Union([Type.String(), Type.Null()], { description: 'the caption read on the page' }),
      confidence: Type.Number({ minimum: 0, maximum: 1, description: 'how sure the detector is, 0-1' }),
      cells: Type.Optional(Type.Integer({ description: 'comb: the number of character cells' })),
      dateFormat: Type.Optional(Type.String({ description: 'date: the display pattern, e.g. dd/mm/yyyy' })),
      options: Type.Optional(Type.Array(Type.String(), { description: 'radio: one option per button' })),
      widgets: Type.Optional(Type.Array(Rect, { description: "radio: each button's box" })),
    },
    { additionalProperties: false, description: 'A form field found in the drawing and text of a page' },
  ),
);

const Warnings = Type.Array(Type.String(), {
  description: 'what detection left out: pages past the page or time budget, pages over a drawing cap, scans',
});

/** POST /templates's answer: the template, and with detectFields=true what was detected. */
export const TemplateCreated = named(
  'TemplateCreated',
  Type.Intersect(
    [
      ref(Template),
      Type.Object({
        detections: Type.Optional(Type.Array(ref(Detection), { description: 'with detectFields=true only' })),
        detectionWarnings: Type.Optional(Warnings),
      }),
    ],
    { description: 'The new template; with detectFields=true, the fields detected and added to its PDF' },
  ),
);
export const TemplateCreatedResponse = named(
  'TemplateCreatedResponse',
  Type.Object({ data: ref(TemplateCreated) }, { additionalProperties: false }),
);

const DetectedFields = named(
  'DetectedFields',
  Type.Object(
    {
      template: ref(Template),
      detections: Type.Array(ref(Detection)),
      warnings: Warnings,
    },
    { additionalProperties: false, description: 'The fields added as the next version (none: no new version)' },
  ),
);
const DetectedFieldsResponse = named(
  'DetectedFieldsResponse',
  Type.Object({ data: ref(DetectedFields) }, { additionalProperties: false }),
);

/** Named schemas of this module (app.ts registers them). */
export const detectComponents: Named[] = [
  Detection,
  TemplateCreated,
  TemplateCreatedResponse,
  DetectedFields,
  DetectedFieldsResponse,
];

export const detectRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/templates/:id/detect-fields',
      {
        schema: {
          tags: ['templates'],
          operationId: 'detectTemplateFields',
          summary: 'Detect the fields a form misses and add them: version + 1',
          description:
            "Reads the pages' drawing and text, skips what the form's own widgets cover, and adds the rest as " +
            'real fields in a new version (keys of existing fields are kept). Nothing detected: no new version.',
          params: IdParams,
          response: {
            200: ref(DetectedFieldsResponse, 'The detections, and the template after them'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('TEMPLATE_FROZEN, or CONFLICT with a change made at the same time'),
          },
        },
      },
      async (request) => ({ data: await detectMissingFields(deps, request.auth.accountId, request.params.id) }),
    );
  };
