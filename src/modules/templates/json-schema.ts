// A JSON Schema (draft 2020-12) of the render `data` a template accepts. Pure: analysis in, schema out.
//
// It mirrors the service's validation in strict mode (render-data/validate-data.ts): data the schema accepts
// renders with `strict: true`, and each kind of data strict mode refuses (wrong type, unknown key,
// missing required field, text over maxLength, a number whose formatted text is over maxLength, a
// value not among the options, an impossible date) the schema refuses too. Where the service accepts
// more, the schema describes the portable subset:
// - keys are the schema `name`s only (the service also takes `pdfMeta.originalName` as an alias);
// - dates are ISO 8601 (the service also reads the render locale's short date, which depends on the
//   request's `locale` option, not on the template);
// - signature images are data URLs (the service also sniffs bare base64).
// Read-only and hidden fields are left out: strict mode refuses a value for them. A constant of the
// template is listed with `const`, `readOnly: true` and `not: {}` (documented, never accepted: data may
// not carry it); so is a field the form computes (read-only or not), whose description says how it is
// computed: the schema is that of the default options.calculate true (with false, data may fill it); a field with a default has `default` and is never required. What no JSON Schema can check
// is left to the service: the bytes inside an image, and a date-time whose offset moves it out of
// years 1-9999 in the render's time zone.
import { fittingRange } from '../render-data/format-value.js';
import { MAX_TEXT_CODE_POINTS } from '../render-data/validate-data.js';
import type { AnalysedField, CalculationKind, FieldFormat } from '../../pdf/types.js';
import type { TemplateField } from '../render-data/template-field.js';

export type JsonSchemaObject = { [keyword: string]: unknown };
type JsonSchema = boolean | JsonSchemaObject;

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

// yyyy-mm-dd with real calendar days (leap years included), years 0001-9999
const ISO_DAY =
  '(?!0000)(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
// optional T / space + HH:MM[:SS[.fff]] + Z / ±HH[:MM]: the forms date-parse.ts reads
const ISO_TIME =
  '(?:[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:[.,]\\d{1,9})?)?(?:[Zz]|[+-](?:[01]\\d|2[0-3])(?::?[0-5]\\d)?)?)?';
/** ISO 8601 date or date-time as render data accepts it (surrounding white space is trimmed). */
const ISO_DATE_PATTERN = `^\\s*${ISO_DAY}${ISO_TIME}\\s*$`;

/** A PNG or JPEG data URL (base64 of a PNG starts "iVBORw0KGgo", of a JPEG "/9j/"). */
const IMAGE_DATA_URL_PATTERN = '^data:image/(?:png|jpeg|jpg);base64,(?:iVBORw0KGgo|/9j/)[A-Za-z0-9+/=_\\s-]*$';

const text = (maxLength = MAX_TEXT_CODE_POINTS) => ({ type: 'string', maxLength });

/** The pattern of a date format as a reader sees it ("mm/dd/yyyy"), for descriptions. */
function formatHint(format: FieldFormat | undefined): string | undefined {
  if (!format) return undefined;
  if (format.kind === 'date' || format.kind === 'time') return format.pattern;
  if (format.kind === 'number') return `${format.decimals} decimals${format.currency ? `, ${format.currency}` : ''}`;
  if (format.kind === 'percent') return `percent, ${format.decimals} decimals`;
  return undefined;
}

/**
 * A number field: a JSON number, and with a /MaxLen, the open interval of numbers whose formatted text
 * fits it (strict mode refuses the others; a bound is what a validator can enforce of "at most N
 * characters as shown").
 */
function numberSchema(f: AnalysedField): { schema: JsonSchema; note: string } {
  const note = 'A JSON number (not a numeric string).';
  const range = f.maxLength ? fittingRange(f.detail.format, f.maxLength) : undefined;
  if (range === undefined) return { schema: { type: 'number' }, note };
  const limit = `shown in at most ${f.maxLength} characters`;
  if (range === 'nothing') return { schema: false, note: `${note} No number can be ${limit}.` };
  return {
    schema: { type: 'number', ...range },
    note: `${note} ${limit[0].toUpperCase()}${limit.slice(1)}: above ${range.exclusiveMinimum} and below ${range.exclusiveMaximum}.`,
  };
}

/** The schema of one field's value, without null (added by the caller for optional fields). */
function valueSchema(f: AnalysedField): { schema: JsonSchema; note: string } {
  const options = [...new Set(f.options ?? [])];
  switch (f.type) {
    case 'text': {
      const max = Math.min(f.maxLength ?? MAX_TEXT_CODE_POINTS, MAX_TEXT_CODE_POINTS);
      return { schema: text(max), note: f.maxLength ? `Text, at most ${f.maxLength} characters.` : 'Text.' };
    }
    case 'number':
      return numberSchema(f);
    case 'date':
      return {
        schema: { type: 'string', pattern: ISO_DATE_PATTERN },
        note: 'A date in ISO 8601: 2024-03-05, or a date-time such as 2024-03-05T10:00:00+02:00.',
      };
    case 'checkbox': {
      const states = f.detail.onStates ?? [];
      if (states.length > 1) {
        return {
          schema: { enum: [...states, false] },
          note: `The state to turn on (${states.map((s) => JSON.stringify(s)).join(', ')}), or false.`,
        };
      }
      return { schema: { type: 'boolean' }, note: 'true checks the box, false clears it.' };
    }
    case 'radio':
    case 'dropdown': {
      // in validate-data's order: multiple choice first (options only, even with the Edit flag)
      const one: JsonSchema = options.length > 0 ? { type: 'string', enum: options } : false;
      if (f.type === 'dropdown' && f.detail.multiSelect) {
        return {
          schema: { anyOf: [one, { type: 'array', items: one }] },
          note: 'One option, or an array of options (a multiple-choice list).',
        };
      }
      if (f.type === 'dropdown' && f.detail.editable) {
        return {
          schema: options.length > 0 ? { ...text(), examples: options } : text(),
          note: 'One of the options, or any text (an editable combo box).',
        };
      }
      return { schema: one, note: options.length > 0 ? 'One of the options.' : 'The field has no options.' };
    }
    case 'signature':
      return {
        schema: {
          anyOf: [
            { ...text(), not: { pattern: '^[Dd][Aa][Tt][Aa]:' } },
            { type: 'string', pattern: IMAGE_DATA_URL_PATTERN },
          ],
        },
        note: 'Text, or a PNG or JPEG image as a data URL (data:image/png;base64,...).',
      };
    default:
      return { schema: false, note: '' };
  }
}

const CALCULATIONS: Record<CalculationKind, string> = {
  sum: 'the sum of',
  product: 'the product of',
  average: 'the average of',
  minimum: 'the smallest of',
  maximum: 'the largest of',
  simplified: 'a formula of',
  custom: 'its own script',
};

/** "the sum of a, b" / "its own script": how a computed field gets its value, fields named by render key. */
function calculationText(f: TemplateField, keys: ReadonlyMap<string, string>): string {
  const kind = f.calculation?.kind ?? 'custom';
  const reads = f.calculation?.reads ?? [];
  if (kind === 'custom') return CALCULATIONS.custom;
  if (reads.length === 0) return `${CALCULATIONS[kind]} other fields`;
  return `${CALCULATIONS[kind]} ${reads.map((r) => keys.get(r) ?? r).join(', ')}`;
}

/** Whether data must carry the field: required, and without a default of the template's. */
const mustSend = (f: TemplateField) => f.required && f.default === undefined && f.constant === undefined;

/** The field's schema: the value's, null allowed unless the field is required, title from its label. */
function fieldSchema(f: TemplateField, keys: ReadonlyMap<string, string>): JsonSchema {
  const { schema, note } = valueSchema(f);
  const hint = formatHint(f.detail.format);
  const where = `PDF field "${f.pdfMeta.originalName}", page ${f.pdfMeta.page}.`;
  const own = f.description ? `${f.description.trim()}\n\n` : '';
  const title = f.label ? { title: f.label } : {};
  if (f.computed) {
    const description = `${own}Computed by the form (${calculationText(f, keys)}) when the PDF is rendered: data may not carry it unless options.calculate is false. ${where}`;
    return { ...title, description, readOnly: true, not: {} };
  }
  if (f.constant !== undefined) {
    const description = `${own}A constant of the template, always drawn as ${JSON.stringify(f.constant)}: data may not carry it. ${where}`;
    return { ...title, description, const: f.constant, readOnly: true, not: {} };
  }
  const description = own + [note, hint ? `Shown as ${hint}.` : '', where].filter(Boolean).join(' ');
  const value = f.required ? schema : orNull(schema);
  return {
    ...title,
    description,
    ...(f.default !== undefined ? { default: f.default } : {}),
    ...(typeof value === 'boolean' ? { allOf: [value] } : value),
  };
}

function orNull(schema: JsonSchema): JsonSchema {
  if (schema === false) return { type: 'null' };
  if (typeof schema === 'boolean') return schema;
  const type = typeof schema.type === 'string' ? { type: [schema.type, 'null'] } : {};
  if (Array.isArray(schema.enum)) return { ...schema, ...type, enum: [...schema.enum, null] };
  if (typeof schema.type === 'string') return { ...schema, ...type };
  return { anyOf: [schema, { type: 'null' }] };
}

interface JsonSchemaTemplate {
  name: string;
  /** absent for a local file (formcast types TEMPLATE.pdf) */
  id?: string;
  version?: number;
}

/** The JSON Schema of render `data` for one template version (strict mode; see the top of this file). */
export function renderDataJsonSchema(
  template: JsonSchemaTemplate,
  analysis: { fields: TemplateField[] },
): JsonSchemaObject {
  // null prototype: a field named "__proto__" is an ordinary key here
  const properties: Record<string, JsonSchema> = Object.create(null);
  const required: string[] = [];
  const keys = new Map(analysis.fields.map((f) => [f.pdfMeta.originalName, f.name]));
  for (const f of analysis.fields) {
    if ((f.pdfMeta.readOnly && !f.computed) || f.hidden) continue;
    properties[f.name] = fieldSchema(f, keys);
    if (mustSend(f)) required.push(f.name);
  }
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: template.name,
    description:
      `Render data for ${template.id ? `template ${template.id} version ${template.version}` : `the form ${JSON.stringify(template.name)}`}` +
      ", as POST /v1/renders accepts it with options.strict true. Keys are the fields' schema names.",
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  };
}
