import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errorResponse, IdParams, type Named, named, ref, stringEnum } from '../../http/openapi.js';
import type { FieldEdit } from '../../pdf/types.js';
import { DEFAULT_EDIT_LIMITS } from '../../pdf/limits.js';
import { editTemplateFields } from './edit-template-fields.js';
import { TemplateSchemaResponse } from './template-schemas.js';

// POST /templates/:id/field-edits: the field editor (HTTP glue only). The schemas check the shape;
// ranges, places and names are the engine's to check, so that every problem names its field.

const Rect = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: "[x1, y1, x2, y2] in PDF points of the page (as pdfMeta.rect), inside the page's visible box",
});
const WidgetPlacement = Type.Object(
  { page: Type.Integer({ description: '1-based page' }), rect: Rect },
  { additionalProperties: false },
);
const Widgets = Type.Array(WidgetPlacement, {
  maxItems: DEFAULT_EDIT_LIMITS.maxOptions,
  description: 'one {page, rect} per widget (radio: per option)',
});
const FontSize = Type.Number({ description: 'text-like fields and dropdowns, 1-144; 0 sizes the text to fit' });
const Alignment = stringEnum(['left', 'center', 'right'], { description: 'text-like fields and dropdowns' });
const Options = Type.Array(Type.String(), {
  maxItems: DEFAULT_EDIT_LIMITS.maxOptions,
  description: 'dropdown and radio: the export values in order, no duplicates (radio: one per widget)',
});

const NewField = named(
  'NewField',
  Type.Object(
    {
      name: Type.String({
        description: "the PDF name of a new top-level field (no '.'): not another field's PDF name or render key",
      }),
      type: stringEnum(['text', 'multiline', 'number', 'date', 'checkbox', 'radio', 'dropdown', 'signature', 'comb']),
      page: Type.Optional(Type.Integer({ description: '1-based page; every type but radio' })),
      rect: Type.Optional(Rect),
      widgets: Type.Optional(Widgets),
      fontSize: Type.Optional(FontSize),
      alignment: Type.Optional(Alignment),
      maxLength: Type.Optional(
        Type.Integer({ description: 'text, multiline, number, date: at most this many characters' }),
      ),
      cells: Type.Optional(Type.Integer({ description: 'comb: the number of character cells' })),
      options: Type.Optional(Options),
      required: Type.Optional(Type.Boolean()),
      readOnly: Type.Optional(Type.Boolean()),
      dateFormat: Type.Optional(Type.String({ description: 'date: the display pattern (default "mm/dd/yyyy")' })),
      decimals: Type.Optional(Type.Integer({ description: 'number: decimals shown, 0-10 (default 2)' })),
    },
    {
      additionalProperties: false,
      description: 'A form field to add to the PDF',
      examples: [
        {
          name: 'signed_on',
          type: 'date',
          page: 1,
          rect: [72, 90, 216, 110],
          fontSize: 10,
          dateFormat: 'dd/mm/yyyy',
          required: true,
        },
      ],
    },
  ),
);

const FieldChanges = named(
  'FieldChanges',
  Type.Object(
    {
      page: Type.Optional(Type.Integer({ description: 'moves a field with one widget to this page' })),
      rect: Type.Optional(Rect),
      widgets: Type.Optional(Widgets),
      fontSize: Type.Optional(FontSize),
      alignment: Type.Optional(Alignment),
      maxLength: Type.Optional(Type.Integer()),
      cells: Type.Optional(Type.Integer({ description: 'makes a text field a comb of this many cells' })),
      options: Type.Optional(Options),
      required: Type.Optional(Type.Boolean()),
    },
    {
      additionalProperties: false,
      description: 'Changes to a field of the PDF; only what is given changes',
      examples: [{ rect: [72, 640, 360, 658], fontSize: 0, maxLength: 40 }],
    },
  ),
);

const FieldName = Type.String({ description: "the field's current render key or its PDF name (pdfMeta.originalName)" });
const AddEdit = named(
  'FieldEditAdd',
  Type.Object(
    { op: Type.Literal('add'), field: ref(NewField) },
    { additionalProperties: false, description: 'Add a field' },
  ),
);
const UpdateEdit = named(
  'FieldEditUpdate',
  Type.Object(
    { op: Type.Literal('update'), name: FieldName, changes: ref(FieldChanges) },
    { additionalProperties: false, description: 'Change a field' },
  ),
);
const DeleteEdit = named(
  'FieldEditDelete',
  Type.Object(
    { op: Type.Literal('delete'), name: FieldName },
    { additionalProperties: false, description: 'Delete a field' },
  ),
);
// A discriminator on op: a wrong edit is reported against its own kind, not against the first one.
const FieldEditSchema = Type.Unsafe<FieldEdit>({
  type: 'object',
  oneOf: [ref(AddEdit), ref(UpdateEdit), ref(DeleteEdit)],
  discriminator: { propertyName: 'op' },
});

const FieldEditsBody = named(
  'TemplateFieldEdits',
  Type.Object(
    {
      edits: Type.Array(FieldEditSchema, {
        minItems: 1,
        // refused here, before the template is loaded and sent to a worker (the engine checks it too)
        maxItems: DEFAULT_EDIT_LIMITS.maxEdits,
        description: `applied in order (an added field exists for the edits after it); at most ${DEFAULT_EDIT_LIMITS.maxEdits}`,
      }),
    },
    {
      additionalProperties: false,
      description: "Edits to the PDF's own form fields: a new version",
      // applied in order: add a date field, let the name fit its box, drop a field the team never fills
      examples: [
        {
          edits: [
            {
              op: 'add',
              field: { name: 'signed_on', type: 'date', page: 1, rect: [72, 90, 216, 110], dateFormat: 'dd/mm/yyyy' },
            },
            { op: 'update', name: 'taxpayer_name', changes: { fontSize: 0, maxLength: 40 } },
            { op: 'delete', name: 'topmostSubform[0].Page1[0].f1_9[0]' },
          ],
        },
      ],
    },
  ),
);

/** Named schemas of this module (app.ts registers them). */
export const fieldEditComponents: Named[] = [NewField, FieldChanges, AddEdit, UpdateEdit, DeleteEdit, FieldEditsBody];

export const fieldEditRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/templates/:id/field-edits',
      {
        schema: {
          tags: ['templates'],
          operationId: 'editTemplateFields',
          summary: "Add, change and delete the PDF's form fields: version + 1",
          description:
            'The edited PDF becomes the next version, as with PUT /file: fields keep their keys and settings, ' +
            'and `schema.fieldMapping` reports what was kept, added and removed. Every problem of the request ' +
            'is reported at once (VALIDATION_ERROR naming each field in `details.errors`) and nothing is saved.',
          params: IdParams,
          body: ref(FieldEditsBody),
          response: {
            200: ref(TemplateSchemaResponse, 'The schema of the new version, with its field mapping'),
            404: errorResponse('TEMPLATE_NOT_FOUND'),
            409: errorResponse('TEMPLATE_FROZEN, or CONFLICT with a change made at the same time'),
            422: errorResponse('VALIDATION_ERROR naming every refused field in details.errors'),
          },
        },
      },
      async (request) => ({
        data: await editTemplateFields(deps, request.auth.accountId, request.params.id, request.body.edits),
      }),
    );
  };
