import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse, IdParams, type Named, named, ref } from '../../http/openapi.js';
import { detectMissingFields } from './detect-template-fields.js';
import { Detection, DetectionWarnings, Template } from './template-schemas.js';

// Field detection over HTTP (glue only): the schema of a detection, the answer of POST /templates with
// detectFields=true, and POST /templates/:id/detect-fields.

const DetectedFields = named(
  'DetectedFields',
  Type.Object(
    {
      template: ref(Template),
      detections: Type.Array(ref(Detection)),
      warnings: DetectionWarnings,
    },
    { additionalProperties: false, description: 'The fields added as the next version (none: no new version)' },
  ),
);
const DetectedFieldsResponse = named(
  'DetectedFieldsResponse',
  Type.Object({ data: ref(DetectedFields) }, { additionalProperties: false }),
);

/** Named schemas of this module (app.ts registers them). */
export const detectComponents: Named[] = [DetectedFields, DetectedFieldsResponse];

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
