// The render-data JSON Schema against the service's own validation (strict mode), on every corpus form:
// valid data passes both Ajv and validateData; each kind of bad data fails both.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { AnalysedField, FieldFormat, TemplateAnalysis } from '../../src/pdf/types.js';
import { renderDataJsonSchema } from '../../src/modules/templates/json-schema.js';
import { validateData } from '../../src/modules/render-data/validate-data.js';
import { DataValidationError } from '../../src/errors.js';
import { corpusDir, corpusFiles } from '../helpers/corpus.js';

const dir = corpusDir();
const STRICT = { strict: true, locale: 'fr-FR', timezone: 'Europe/Paris' };
// a 1x1 PNG
const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A value the field accepts, or undefined when it accepts none (options-less choice fields). */
function validValue(f: AnalysedField, variant: number): unknown {
  const options = f.options ?? [];
  switch (f.type) {
    case 'text':
      // the longest value allowed on one variant, a short one on the other
      if (variant === 0 && f.maxLength) return 'x'.repeat(f.maxLength);
      return Array.from('Zoë 1')
        .slice(0, f.maxLength ?? 5)
        .join('');
    case 'number':
      // a number field with a MaxLen (the DS-11's phone combs) takes what its format prints that short
      if (f.maxLength) return variant;
      return variant === 0 ? 1234.5 : -7;
    case 'date':
      return variant === 0 ? '2024-02-29' : '2024-03-05T23:30:00Z';
    case 'checkbox': {
      const states = f.detail.onStates ?? [];
      if (states.length > 1) return variant === 0 ? states[states.length - 1] : false;
      return variant === 0;
    }
    case 'radio':
    case 'dropdown':
      if (f.detail.editable) return variant === 0 ? 'any text at all' : (options[0] ?? 'x');
      if (options.length === 0) return undefined;
      if (f.detail.multiSelect && variant === 0) return options.slice(0, 2);
      return options[options.length - 1 - (variant % options.length)] ?? options[0];
    case 'signature':
      return variant === 0 ? PNG_DATA_URL : 'Jane Doe';
  }
}

function validData(fields: AnalysedField[], variant: number): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.pdfMeta.readOnly) continue;
    const v = validValue(f, variant);
    if (v !== undefined) data[f.name] = v;
    else if (!f.required) data[f.name] = null;
  }
  return data;
}

/** Bad values of each kind the field can be given, each with the kind's name. */
function badValues(f: AnalysedField): [string, unknown][] {
  const out: [string, unknown][] = [];
  out.push(['wrong type', f.type === 'number' ? '12' : f.type === 'checkbox' ? 1 : 12]);
  if (f.type === 'text' && f.maxLength) out.push(['too long', 'y'.repeat(f.maxLength + 1)]);
  if (f.type === 'number' && f.maxLength) out.push(['too long once formatted', 10 ** f.maxLength]);
  if (f.type === 'text') out.push(['far too long', 'y'.repeat(100_001)]);
  if ((f.type === 'radio' || f.type === 'dropdown') && !f.detail.editable)
    out.push(['not in enum', 'no such option ☃']);
  if (f.type === 'checkbox' && (f.detail.onStates?.length ?? 0) > 1) {
    out.push(['not in enum', 'no such state ☃'], ['true for a several-state checkbox', true]);
  }
  if (f.type === 'dropdown' && f.detail.multiSelect) out.push(['not in enum (array)', ['no such option ☃']]);
  if (f.type === 'date') out.push(['impossible date', '2023-02-29'], ['not a date', 'next tuesday']);
  if (f.type === 'signature') out.push(['not an image data URL', 'data:text/plain;base64,SGVsbG8=']);
  if (f.required) out.push(['null for a required field', null]);
  return out;
}

const serviceAccepts = (fields: AnalysedField[], data: unknown): true | string => {
  try {
    validateData(fields, data, STRICT);
    return true;
  } catch (err) {
    if (err instanceof DataValidationError) return err.message;
    throw err;
  }
};

describe.skipIf(!dir)('render-data JSON Schema agrees with strict validation on every corpus form', () => {
  const kinds = new Map<string, number>();
  const seen = (kind: string) => kinds.set(kind, (kinds.get(kind) ?? 0) + 1);

  for (const file of corpusFiles()) {
    const base = path.basename(file);
    it(base, async () => {
      let analysis: TemplateAnalysis;
      try {
        analysis = await analyse(fs.readFileSync(file));
      } catch {
        return; // not a usable form: nothing to describe
      }
      const schema = renderDataJsonSchema({ id: 'tpl_test', name: base, version: 1 }, analysis);
      const ajv = new Ajv2020({ strict: true });
      const check = ajv.compile(schema as object);
      const { fields } = analysis;
      const writable = fields.filter((f) => !f.pdfMeta.readOnly);

      for (const variant of [0, 1]) {
        const data = validData(fields, variant);
        expect(check(data), `${base} variant ${variant}: ${JSON.stringify(check.errors?.slice(0, 3))}`).toBe(true);
        expect(serviceAccepts(fields, data), `${base} variant ${variant}`).toBe(true);
      }
      // only the required fields, everything else left out
      const minimal = Object.fromEntries(
        Object.entries(validData(fields, 1)).filter(([k]) => writable.find((f) => f.name === k)?.required),
      );
      expect(check(minimal), base).toBe(true);
      expect(serviceAccepts(fields, minimal), base).toBe(true);

      const good = validData(fields, 1);
      const bothReject = (kind: string, data: unknown, where: string) => {
        seen(kind);
        expect(check(data), `${where}: ${kind} passed Ajv`).toBe(false);
        expect(serviceAccepts(fields, data), `${where}: ${kind} passed the service`).not.toBe(true);
      };
      for (const f of writable) {
        for (const [kind, value] of badValues(f)) bothReject(kind, { ...good, [f.name]: value }, `${base} ${f.name}`);
        if (f.required) {
          const { [f.name]: _dropped, ...rest } = good;
          bothReject('missing required', rest, `${base} ${f.name}`);
        }
      }
      for (const f of fields.filter((x) => x.pdfMeta.readOnly)) {
        bothReject('value for a read-only field', { ...good, [f.name]: validValue(f, 1) ?? 'x' }, `${base} ${f.name}`);
      }
      bothReject('unknown key', { ...good, 'no such field ☃': 'x' }, base);
      bothReject('not an object', [good], base);
    });
  }

  it('exercised every kind of bad data somewhere in the corpus', () => {
    for (const kind of [
      'wrong type',
      'too long',
      'far too long',
      'not in enum',
      'not in enum (array)',
      'true for a several-state checkbox',
      'impossible date',
      'not a date',
      'not an image data URL',
      'too long once formatted',
      'null for a required field',
      'missing required',
      'value for a read-only field',
      'unknown key',
    ]) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
  });
});

describe('render-data JSON Schema shape', () => {
  const field = (name: string, type: AnalysedField['type'], extra: Partial<AnalysedField> = {}): AnalysedField => ({
    name,
    type,
    required: false,
    label: null,
    pdfMeta: { originalName: `form.${name}`, page: 1, rect: [0, 0, 10, 10] },
    detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true },
    ...extra,
  });
  const analysis = (fields: AnalysedField[]): TemplateAnalysis => ({
    fields,
    pageCount: 1,
    encrypted: false,
    hasXfa: false,
  });

  it('treats a multiple-choice list with the Edit flag as the service does: options only', () => {
    const fields = [
      field('langs', 'dropdown', {
        options: ['fr', 'en'],
        detail: { ft: 'Ch', widgetCount: 1, inAcroFormFields: true, editable: true, multiSelect: true },
      }),
    ];
    const check = new Ajv2020({ strict: true }).compile(renderDataJsonSchema({ name: 'x' }, analysis(fields)));
    for (const value of ['fr', ['fr', 'en'], null]) {
      expect(check({ langs: value })).toBe(true);
      expect(serviceAccepts(fields, { langs: value })).toBe(true);
    }
    for (const value of ['free text', ['de']]) {
      expect(check({ langs: value })).toBe(false);
      expect(serviceAccepts(fields, { langs: value })).not.toBe(true);
    }
  });

  it('bounds a number field with a MaxLen by its formatted text: Ajv and strict validation agree at every edge', () => {
    const number = (maxLength: number, format: FieldFormat) =>
      field('n', 'number', {
        maxLength,
        detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true, comb: true, format },
      });
    const af = (decimals: number, sepStyle: number, negStyle: number, currency = '') =>
      ({ kind: 'number', decimals, sepStyle, negStyle, currency, currencyPrepend: true }) as const;
    const cases: [number, FieldFormat][] = [
      [2, af(0, 1, 0)],
      [4, af(0, 0, 0)],
      [6, af(2, 0, 2, '$')],
      [8, af(2, 0, 3, '€ ')],
      [5, af(1, 2, 1)],
      [3, { kind: 'percent', decimals: 0, sepStyle: 0 }],
      [6, { kind: 'percent', decimals: 2, sepStyle: 0 }],
    ];
    const values = [0, 1, -1, 9, -9, 9.4, 9.5, 99, 99.49, 99.5, 99.994, 99.995, -99.995, 999, 1234.5, -1234.5, 0.0049];
    for (const [max, format] of cases) {
      const fields = [number(max, format)];
      const schema = renderDataJsonSchema({ name: 'x' }, analysis(fields));
      const check = new Ajv2020({ strict: true }).compile(schema);
      for (const v of [...values, ...values.map((x) => x / 100)]) {
        const where = `MaxLen ${max} ${JSON.stringify(format)} ${v}`;
        expect(check({ n: v }), where).toBe(serviceAccepts(fields, { n: v }) === true);
      }
    }
    // MaxLen 2, no decimals or grouping: -9 to 99
    const comb = renderDataJsonSchema({ name: 'x' }, analysis([number(2, af(0, 1, 0))])) as {
      properties: { n: { exclusiveMinimum: number; exclusiveMaximum: number; description: string } };
    };
    expect(comb.properties.n).toMatchObject({ exclusiveMinimum: -9.5, exclusiveMaximum: 99.5 });
    expect(comb.properties.n.description).toContain('at most 2 characters');
    // not even 0.00 fits in 3 places: no number is valid
    const none = new Ajv2020({ strict: true }).compile(
      renderDataJsonSchema({ name: 'x' }, analysis([number(3, af(2, 0, 0))])),
    );
    expect(none({ n: 0 })).toBe(false);
    expect(none({ n: null })).toBe(true);
  });

  it('keys properties by name, takes titles from labels, lists required fields and forbids other keys', () => {
    const schema = renderDataJsonSchema(
      { id: 'tpl_1', name: 'W-9', version: 3 },
      analysis([
        field('ssn', 'text', { required: true, maxLength: 9, label: 'Social security number' }),
        field('when', 'date', {
          detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true, format: { kind: 'date', pattern: 'mm/dd/yyyy' } },
        }),
        field('office', 'text', { pdfMeta: { originalName: 'form.office', page: 1, readOnly: true } }),
      ]),
    ) as Record<string, any>;
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'W-9',
      type: 'object',
      required: ['ssn'],
      additionalProperties: false,
    });
    expect(schema.description).toContain('version 3');
    expect(Object.keys(schema.properties)).toEqual(['ssn', 'when']);
    expect(schema.properties.ssn).toMatchObject({ title: 'Social security number', type: 'string', maxLength: 9 });
    expect(schema.properties.when.type).toEqual(['string', 'null']);
    expect(schema.properties.when.description).toContain('mm/dd/yyyy');
    expect(schema.properties.when).not.toHaveProperty('title');
  });
});
