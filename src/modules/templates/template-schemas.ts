import { Type } from '@sinclair/typebox';
import { dataResponse, type Named, named, pageResponse, ref, stringEnum } from '../../http/openapi.js';
import { PageQuery } from '../../http/pagination.js';
import { RenderOptions } from '../render-data/request-schemas.js';

// The templates module's request and answer schemas (#/components/schemas/<name>): one definition for
// every route file of the module (routes.ts, field-routes.ts, field-edit-routes.ts).

export const Template = named(
  'Template',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      description: Type.Optional(Type.String()),
      fileName: Type.String(),
      fileSize: Type.Integer(),
      fieldCount: Type.Integer(),
      isFrozen: Type.Boolean(),
      version: Type.Integer(),
      locale: Type.Union([Type.String(), Type.Null()], {
        description:
          "Locale of this template's renders when a request gives none; null: the account's (account settings), else the server's (DEFAULT_LOCALE, fr-FR)",
      }),
      timezone: Type.Union([Type.String(), Type.Null()], {
        description:
          "Time zone of this template's renders when a request gives none; null: the account's (account settings), else the server's (DEFAULT_TIMEZONE, Europe/Paris)",
      }),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    {
      description: 'A PDF form uploaded as a template',
      examples: [
        {
          id: 'tpl_01a21680738b60de6c07f401',
          name: 'W-9 (2024)',
          description: 'Request for taxpayer identification number',
          fileName: 'fw9.pdf',
          fileSize: 141502,
          fieldCount: 23,
          isFrozen: false,
          version: 1,
          locale: null,
          timezone: null,
          createdAt: '2026-11-26T06:10:00.000Z',
          updatedAt: '2026-11-26T06:10:00.000Z',
        },
      ],
    },
  ),
);
const Rect = Type.Array(Type.Number(), {
  minItems: 4,
  maxItems: 4,
  description: '[x1, y1, x2, y2] in PDF points, origin at the bottom left of the page, x1 <= x2 and y1 <= y2',
});
const ScriptKind = stringEnum(
  ['AFNumber', 'AFPercent', 'AFDate', 'AFTime', 'AFSpecial', 'AFRange_Validate', 'custom'] as const,
  { description: "one of Acrobat's AF* built-ins (the whole script is that call), else custom" },
);
const UnsupportedApi = {
  api: Type.String({ description: 'the API as the script names it, e.g. app.response, xfa, SOAP, submitForm' }),
  reason: Type.String({ description: 'why it cannot run when a PDF is rendered' }),
};
const UnsupportedScript = named(
  'UnsupportedScript',
  Type.Object(
    {
      action: stringEnum(['calculate', 'format', 'keystroke', 'validate'] as const),
      ...UnsupportedApi,
    },
    {
      description:
        "a field's script that uses an API the render-time sandbox does not offer: at render time it ends as a warning on the field, whose value stays as sent or empty",
    },
  ),
);
// Hand-written examples: the W-9 of the Template example after the PATCH /fields and field-edits examples
// (a key set, a constant, a date field added).
const FIELD_EXAMPLES = [
  {
    name: 'taxpayer_name',
    type: 'text',
    required: true,
    description: 'Line 1: name as shown on your income tax return',
    label: 'Name of entity/individual. An entry is required.',
    labelSource: 'tooltip',
    suggestedName: 'name_of_entity_individual',
    pdfMeta: { originalName: 'topmostSubform[0].Page1[0].f1_1[0]', page: 1, rect: [72, 640, 360, 658] },
  },
  {
    name: 'requester',
    type: 'text',
    required: false,
    constant: 'Acme Payroll Ltd',
    label: "Requester's name and address (optional)",
    labelSource: 'page',
    suggestedName: 'requesters_name_and_address',
    pdfMeta: { originalName: 'topmostSubform[0].Page1[0].f1_7[0]', page: 1, rect: [380, 520, 560, 560] },
  },
  {
    name: 'signed_on',
    type: 'date',
    required: false,
    label: null,
    labelSource: 'none',
    suggestedName: 'signed_on',
    pdfMeta: { originalName: 'signed_on', page: 1, rect: [72, 90, 216, 110] },
    scripts: { format: 'AFDate', keystroke: 'AFDate' },
  },
];
const SchemaField = named(
  'SchemaField',
  Type.Object(
    {
      name: Type.String(),
      type: Type.Union(
        ['text', 'checkbox', 'radio', 'dropdown', 'date', 'number', 'signature'].map((t) => Type.Literal(t)),
      ),
      required: Type.Boolean({ description: "the PDF's Required flag, or the team's rule when set" }),
      description: Type.Optional(Type.String({ description: "the team's description of the field" })),
      default: Type.Optional(
        Type.Unknown({ description: 'drawn when render data omits the key (formatted like data): the team sets it' }),
      ),
      constant: Type.Optional(
        Type.Unknown({ description: 'always drawn; render data may not carry the field: the team sets it' }),
      ),
      hidden: Type.Optional(
        Type.Literal(true, {
          description: 'never drawn; data for it is ignored with a warning (refused in strict mode)',
        }),
      ),
      maxLength: Type.Optional(Type.Integer()),
      options: Type.Optional(Type.Array(Type.String())),
      optionLabels: Type.Optional(
        Type.Array(Type.String(), {
          description:
            'what a person reads for each option, parallel to options: the display text of a dropdown option, the words beside a radio button or check box state (the option itself when there is none)',
        }),
      ),
      label: Type.Union([Type.String(), Type.Null()], {
        description: "the field's tooltip (/TU), else the caption printed beside it on the page, null when neither",
      }),
      labelSource: Type.Union([Type.Literal('tooltip'), Type.Literal('page'), Type.Literal('none')], {
        description: 'where label came from',
      }),
      suggestedName: Type.String({
        description:
          'a readable key made from the label (else the PDF name): lower snake_case ASCII, at most 40 characters, unique in the template',
      }),
      pdfMeta: Type.Object({
        originalName: Type.String(),
        page: Type.Integer({ description: "1-based page of the field's first widget" }),
        readOnly: Type.Optional(Type.Boolean()),
        rect: Rect,
        widgets: Type.Optional(
          Type.Array(Type.Object({ page: Type.Integer(), rect: Rect }), {
            description: 'every widget of the field in order (the first is page + rect): only when it has several',
          }),
        ),
        editable: Type.Optional(
          Type.Literal(true, { description: 'combo boxes with the Edit flag only: any text is accepted' }),
        ),
      }),
      computed: Type.Optional(
        Type.Literal(true, {
          description:
            'the form computes the value with its own calculate script at render time: data for it is refused in strict mode and ignored with a warning otherwise, unless options.calculate is false (README: "Computed forms")',
        }),
      ),
      calculation: Type.Optional(
        Type.Object(
          {
            kind: stringEnum(['sum', 'product', 'average', 'minimum', 'maximum', 'simplified', 'custom'] as const, {
              description:
                "AFSimple_Calculate's SUM, PRD, AVG, MIN or MAX; simplified: Acrobat's simplified field notation; custom: any other script",
            }),
            reads: Type.Optional(
              Type.Array(Type.String(), {
                description:
                  'the render keys of the fields it reads (AFSimple_Calculate and simplified field notation only: a custom script is not read)',
              }),
            ),
          },
          { description: 'computed fields only: how the form computes the value' },
        ),
      ),
      scripts: Type.Optional(
        Type.Object(
          {
            format: Type.Optional(ScriptKind),
            keystroke: Type.Optional(ScriptKind),
            validate: Type.Optional(ScriptKind),
          },
          {
            description:
              "the field's format (how the value is shown), keystroke and validate scripts (which check a caller's value), when it has them",
          },
        ),
      ),
      unsupportedScripts: Type.Optional(Type.Array(ref(UnsupportedScript))),
    },
    {
      description: 'A form field: the key to send in render data and the value it expects',
      examples: [FIELD_EXAMPLES[0]],
    },
  ),
);
const Removal = named(
  'OutputRemoval',
  Type.Object(
    {
      feature: Type.String({
        description: 'xfa, usage-rights, javascript, launch-actions, submit-actions, embedded-files or uri-links',
      }),
      description: Type.String(),
    },
    { description: 'a feature of the template that rendered PDFs leave out, and why' },
  ),
);
const MappedField = Type.Object({
  key: Type.String({ description: 'the render key in the new version (for removed fields: the key it had)' }),
  originalName: Type.String(),
});
const FieldMapping = named(
  'FieldMapping',
  Type.Object(
    {
      kept: Type.Array(MappedField, { description: 'same PDF name' }),
      renamedInPdf: Type.Array(
        Type.Object({
          key: Type.String(),
          originalName: Type.String(),
          from: Type.String({ description: 'the PDF name in the previous file' }),
          by: Type.String({
            description:
              'label (same label and type), name-part (same last name part, nearby), place (overlapping box), ' +
              'similar-label (labels worded alike), row (the rest of a row a pair ties) or neighbour (moved with ' +
              'its nearest paired neighbour)',
          }),
          confidence: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 1,
              description:
                'how strongly the sign that paired the fields says they are the same field (absent in reports ' +
                'stored before it)',
            }),
          ),
        }),
      ),
      added: Type.Array(MappedField, { description: 'fields new in this file' }),
      removed: Type.Array(MappedField, { description: 'fields of the previous file with no counterpart' }),
      dropped: Type.Array(
        Type.Object({ key: Type.String(), originalName: Type.String(), setting: Type.String(), reason: Type.String() }),
        { description: 'settings of kept fields that the new field could not take' },
      ),
    },
    {
      description:
        "How a new file's fields map to the previous file's: mapped fields keep their key, default and rules",
    },
  ),
);
const TemplateSchema = named(
  'TemplateSchema',
  Type.Object(
    {
      templateId: Type.String(),
      templateName: Type.String(),
      version: Type.Integer(),
      schema: Type.Object({
        fields: Type.Array(ref(SchemaField)),
        pageCount: Type.Integer(),
        removedFromOutput: Type.Array(ref(Removal)),
        scripts: Type.Object(
          {
            calculationOrder: Type.Array(Type.String(), {
              description: "the render keys of the fields in the form's calculation order (/AcroForm /CO)",
            }),
            document: Type.Array(
              Type.Object({
                name: Type.String(),
                functions: Type.Array(Type.String(), { description: 'the functions it declares (first 100)' }),
                unsupported: Type.Optional(Type.Array(Type.Object(UnsupportedApi))),
              }),
              {
                description:
                  "the form's document-level scripts (/Names /JavaScript), which define functions its field scripts call",
              },
            ),
          },
          { description: "the form's own scripts as a whole; the fields' are on each field" },
        ),
        fieldMapping: Type.Union([ref(FieldMapping), Type.Null()], {
          description:
            "the latest file replacement's mapping to the previous file; null when the file was never replaced",
        }),
      }),
    },
    {
      description: 'The fields of a template, to build render data from',
      examples: [
        {
          templateId: 'tpl_01a21680738b60de6c07f401',
          templateName: 'W-9 (2024)',
          version: 3,
          schema: {
            fields: FIELD_EXAMPLES,
            pageCount: 6,
            removedFromOutput: [
              {
                feature: 'javascript',
                description:
                  'JavaScript (document, page, field and link scripts, including format and calculation scripts) is dropped: values are formatted when rendered.',
              },
            ],
            scripts: { calculationOrder: [], document: [] },
            fieldMapping: null,
          },
        },
      ],
    },
  ),
);
export const TemplatePatch = named(
  'TemplatePatch',
  Type.Object(
    {
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      isFrozen: Type.Optional(Type.Boolean()),
      locale: Type.Optional(
        Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
          description:
            "BCP 47 locale of the template's renders when a request gives none (e.g. en-US); null: the account's, else the server's",
        }),
      ),
      timezone: Type.Optional(
        Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
          description:
            "IANA time zone of the template's renders when a request gives none (e.g. UTC); null: the account's, else the server's",
        }),
      ),
    },
    { additionalProperties: false, description: 'The properties to change; the others keep their value' },
  ),
);
const RenderDataJsonSchema = named(
  'TemplateJsonSchema',
  Type.Object(
    {
      templateId: Type.String(),
      templateName: Type.String(),
      version: Type.Integer({ description: 'the template version the schema describes' }),
      schema: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description:
          "a JSON Schema (draft 2020-12) of render `data`: properties keyed by field name, title from the field's " +
          'label, additionalProperties false; it mirrors strict-mode validation (README: "JSON Schema of render data")',
      }),
    },
    { description: 'The render data of one template version as a JSON Schema' },
  ),
);
export const TemplateJsonSchemaResponse = dataResponse(RenderDataJsonSchema);
export const TemplateUpload = named(
  'TemplateUpload',
  Type.Object(
    {
      file: Type.String({ format: 'binary', description: 'The AcroForm PDF (plan limit: 10/25/50 MB)' }),
      name: Type.Optional(Type.String({ maxLength: 200, description: 'Template name (default: the file name)' })),
      description: Type.Optional(Type.String({ maxLength: 2000 })),
      detectFields: Type.Optional(
        stringEnum(['true', 'false'], {
          description:
            'true: a PDF without a form gets its fields detected from its drawing and text and added as real ' +
            'fields (the answer lists them); without it such a file answers INVALID_PDF',
        }),
      ),
    },
    { description: 'A PDF form upload (multipart/form-data)' },
  ),
);
export const PreviewRequest = named(
  'PreviewRequest',
  Type.Object(
    {
      data: Type.Object(
        {},
        { additionalProperties: true, description: 'Values keyed by schema field name (or original PDF name)' },
      ),
      options: Type.Optional(ref(RenderOptions)),
    },
    { additionalProperties: false, description: 'The data and options of a render, for a preview' },
  ),
);
export const TemplateResponse = dataResponse(Template);
const TemplateReplaced = named(
  'TemplateReplaced',
  Type.Intersect([ref(Template), Type.Object({ fieldMapping: ref(FieldMapping) })], {
    description: 'The template after a file replacement, with how the new fields map to the old',
  }),
);
export const TemplateReplacedResponse = dataResponse(TemplateReplaced);
export const TemplateList = pageResponse(Template);
export const TemplateSchemaResponse = dataResponse(TemplateSchema);
const TemplateVersion = named(
  'TemplateVersion',
  Type.Object(
    {
      version: Type.Integer({ minimum: 1 }),
      change: stringEnum(['earlier', 'fields', 'file'] as const, {
        description:
          'earlier: the version the template had at its first recorded change; fields: PATCH /fields; ' +
          'file: a file replacement or a field edit',
      }),
      createdAt: Type.String({ format: 'date-time' }),
      keys: Type.Integer({ minimum: 0, description: 'the number of fields of the version' }),
      report: Type.Union(
        [
          ref(FieldMapping),
          Type.Object(
            {
              changed: Type.Array(Type.String(), {
                description: 'the PDF names (pdfMeta.originalName) of the fields whose settings changed',
              }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          description:
            "file: how the new fields map to the previous version's; fields: the fields it changed; earlier: null",
        },
      ),
    },
    { additionalProperties: false, description: 'One recorded version of a template' },
  ),
);
export const TemplateVersionList = pageResponse(TemplateVersion);
/** Offset pages, and a version number as cursor (the versions below it). */
export const TemplateVersionQuery = Type.Object(
  {
    ...PageQuery.properties,
    starting_after: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'The version of the last item of the previous page: list the versions before it',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Named schemas of this module (app.ts registers them; they are #/components/schemas/<name>). */
// ---- field detection (detect-routes.ts): a detection, and POST /templates's answer with detectFields ----

const DetectionRect = Type.Array(Type.Number(), {
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
      rect: DetectionRect,
      label: Type.Union([Type.String(), Type.Null()], { description: 'the caption read on the page' }),
      confidence: Type.Number({ minimum: 0, maximum: 1, description: 'how sure the detector is, 0-1' }),
      cells: Type.Optional(Type.Integer({ description: 'comb: the number of character cells' })),
      dateFormat: Type.Optional(Type.String({ description: 'date: the display pattern, e.g. dd/mm/yyyy' })),
      options: Type.Optional(Type.Array(Type.String(), { description: 'radio: one option per button' })),
      widgets: Type.Optional(Type.Array(DetectionRect, { description: "radio: each button's box" })),
    },
    { additionalProperties: false, description: 'A form field found in the drawing and text of a page' },
  ),
);

export const DetectionWarnings = Type.Array(Type.String(), {
  description: 'what detection left out: pages past the page or time budget, pages over a drawing cap, scans',
});

/** POST /templates's answer: the template, and with detectFields=true what was detected. */
const TemplateCreated = named(
  'TemplateCreated',
  Type.Intersect(
    [
      ref(Template),
      Type.Object({
        detections: Type.Optional(Type.Array(ref(Detection), { description: 'with detectFields=true only' })),
        detectionWarnings: Type.Optional(DetectionWarnings),
      }),
    ],
    { description: 'The new template; with detectFields=true, the fields detected and added to its PDF' },
  ),
);
export const TemplateCreatedResponse = named(
  'TemplateCreatedResponse',
  Type.Object({ data: ref(TemplateCreated) }, { additionalProperties: false }),
);

export const templateComponents: Named[] = [
  Template,
  UnsupportedScript,
  SchemaField,
  Removal,
  FieldMapping,
  TemplateSchema,
  TemplatePatch,
  TemplateUpload,
  TemplateResponse,
  TemplateReplaced,
  TemplateReplacedResponse,
  TemplateList,
  TemplateSchemaResponse,
  TemplateVersion,
  TemplateVersionList,
  RenderDataJsonSchema,
  TemplateJsonSchemaResponse,
  PreviewRequest,
  Detection,
  TemplateCreated,
  TemplateCreatedResponse,
];
/** A PDF answer: the OpenAPI document lists it as application/pdf (`produces`). */
