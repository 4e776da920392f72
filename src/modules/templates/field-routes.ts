import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse, IdParams, type Named, named, ref } from '../../http/openapi.js';
import type { FieldsPatch } from './fields-patch.js';
import { TemplateSchemaResponse } from './template-schemas.js';
import { updateTemplateFields } from './update-fields.js';

// PATCH /templates/:id/fields: a team's own keys, defaults and rules (HTTP glue only).

const FieldPatch = named(
  'FieldPatch',
  Type.Object(
    {
      name: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description:
            "the render key: 1-100 letters, digits, '_', '.' or '-', unique, not another field's PDF name; null: the analyser's",
        }),
      ),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
      required: Type.Optional(
        Type.Union([Type.Boolean(), Type.Null()], {
          description: "overrides the PDF's Required flag; null: the PDF's",
        }),
      ),
      default: Type.Optional(
        Type.Unknown({
          description:
            'a value as render data would carry it (dates in ISO 8601), drawn when data omits the key; null removes it',
        }),
      ),
      constant: Type.Optional(
        Type.Unknown({ description: 'a value always drawn; render data may not carry the field; null removes it' }),
      ),
      hidden: Type.Optional(Type.Boolean({ description: 'true: never drawn' })),
    },
    {
      additionalProperties: false,
      description: "One field's settings to change; the others keep their value",
      examples: [
        { name: 'taxpayer_name', description: 'Line 1: name as shown on your income tax return', required: true },
      ],
    },
  ),
);

const FieldsPatchBody = named(
  'TemplateFieldsPatch',
  Type.Object(
    {
      fields: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: ref(FieldPatch),
            description: "changes by the field's current key or its PDF name (pdfMeta.originalName)",
          },
        ),
      ),
      useSuggestedNames: Type.Optional(
        Type.Boolean({
          description:
            'every field with a suggestedName takes it as its key, unless another setting of the call names it',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'Changes to the fields of a template: a new version when anything changes',
      // by current key or PDF name: a key, a fixed value, a default, a field never drawn
      examples: [
        {
          fields: {
            'topmostSubform[0].Page1[0].f1_1[0]': { name: 'taxpayer_name', required: true },
            business_name: { default: '' },
            'topmostSubform[0].Page1[0].f1_7[0]': { name: 'requester', constant: 'Acme Payroll Ltd' },
            exempt_payee_code: { hidden: true },
          },
        },
      ],
    },
  ),
);

/** Named schemas of this module (app.ts registers them). */
export const fieldComponents: Named[] = [FieldPatch, FieldsPatchBody];

export const fieldRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.patch(
      '/templates/:id/fields',
      {
        schema: {
          tags: ['templates'],
          operationId: 'updateTemplateFields',
          summary: "Set the fields' own keys, descriptions, defaults, constants and rules: version + 1",
          description:
            'Every problem of the request is reported at once (VALIDATION_ERROR, `details.errors`) and nothing ' +
            "is saved. The field's PDF name stays accepted as a key in render data. A request that changes " +
            'nothing keeps the version. Answers the updated schema.',
          params: IdParams,
          body: ref(FieldsPatchBody),
          response: {
            200: ref(TemplateSchemaResponse, 'The schema of the new version'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('TEMPLATE_FROZEN, or CONFLICT with a change made at the same time'),
            422: errorResponse('VALIDATION_ERROR naming every bad field in details.errors'),
          },
        },
      },
      async (request) => ({
        data: await updateTemplateFields(deps, request.auth.accountId, request.params.id, request.body as FieldsPatch),
      }),
    );
  };
