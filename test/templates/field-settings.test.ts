// The team's field settings: the pure steps (the patch, the effective fields, validation with them).
// The HTTP side is in test/http/template-fields.test.ts.
import { describe, expect, it } from 'vitest';
import { validateData } from '../../src/modules/render-data/validate-data.js';
import { DataValidationError } from '../../src/errors.js';
import type { AnalysedField, FieldDetail, FieldType } from '../../src/pdf/types.js';
import { effectiveFields, type FieldSettings } from '../../src/modules/templates/field-settings.js';
import { applyFieldsPatch, type FieldsPatch } from '../../src/modules/templates/fields-patch.js';
import { renderDataJsonSchema } from '../../src/modules/templates/json-schema.js';

function field(
  name: string,
  type: FieldType,
  extra: Partial<AnalysedField> = {},
  detail: Partial<FieldDetail> = {},
): AnalysedField {
  const ft = type === 'checkbox' || type === 'radio' ? 'Btn' : type === 'dropdown' ? 'Ch' : 'Tx';
  return {
    name,
    type,
    required: false,
    ...extra,
    pdfMeta: { originalName: `form1.${name}[0]`, page: 1, ...extra.pdfMeta },
    detail: { ft, widgetCount: 1, inAcroFormFields: true, ...detail },
  };
}

const FIELDS: AnalysedField[] = [
  field('f1_01', 'text', { suggestedName: 'first_name', required: true }),
  field('f1_02', 'text', { suggestedName: 'last_name', maxLength: 5 }),
  field('c1_1', 'checkbox', { suggestedName: 'agree' }),
  field('country', 'dropdown', { options: ['FR', 'DE'] }),
  field('due', 'date', { suggestedName: 'due_date' }, { format: { kind: 'date', pattern: 'mm/dd/yyyy' } }),
  field('amount', 'number'),
  field('office', 'text', { pdfMeta: { originalName: 'form1.office[0]', page: 1, readOnly: true } }),
];
const NONE: FieldSettings = Object.create(null);
const LAX = { strict: false, locale: 'fr-FR', timezone: 'Europe/Paris' };
const STRICT = { ...LAX, strict: true };

function patched(patch: FieldsPatch, current = NONE): FieldSettings {
  const out = applyFieldsPatch(FIELDS, current, patch, 100);
  if (!out.ok) throw new Error(JSON.stringify(out.problems));
  return out.settings;
}
function problems(patch: FieldsPatch, current = NONE, max = 100) {
  const out = applyFieldsPatch(FIELDS, current, patch, max);
  if (out.ok) throw new Error('expected problems');
  return out.problems;
}
function rejection(run: () => unknown): DataValidationError {
  try {
    run();
  } catch (err) {
    if (err instanceof DataValidationError) return err;
    throw err;
  }
  throw new Error('expected a DataValidationError');
}

describe('PATCH fields: the patch', () => {
  it('sets keys by the current key or the PDF name, and null goes back to the analyser', () => {
    const s = patched({ fields: { f1_01: { name: 'given' }, 'form1.amount[0]': { name: 'total' } } });
    expect(effectiveFields(FIELDS, s).map((f) => f.name)).toEqual([
      'given',
      'f1_02',
      'c1_1',
      'country',
      'due',
      'total',
      'office',
    ]);
    const back = patched({ fields: { given: { name: null } } }, s);
    expect(back['form1.f1_01[0]']).toBeUndefined();
    expect(back['form1.amount[0]']).toEqual({ name: 'total' });
  });

  it('useSuggestedNames adopts every suggested name, except one another setting of the call names', () => {
    const all = effectiveFields(FIELDS, patched({ useSuggestedNames: true })).map((f) => f.name);
    expect(all).toEqual(['first_name', 'last_name', 'agree', 'country', 'due_date', 'amount', 'office']);

    // amount takes "agree" explicitly: c1_1 keeps its own key; f1_01 names itself and keeps that
    const s = patched({
      useSuggestedNames: true,
      fields: { amount: { name: 'agree' }, f1_01: { name: 'who' } },
    });
    expect(effectiveFields(FIELDS, s).map((f) => f.name)).toEqual([
      'who',
      'last_name',
      'c1_1',
      'country',
      'due_date',
      'agree',
      'office',
    ]);
  });

  it('useSuggestedNames leaves alone a suggestion that a field without one holds as its key', () => {
    const fields = [field('agree', 'text'), field('c1_1', 'checkbox', { suggestedName: 'agree' })];
    const out = applyFieldsPatch(fields, NONE, { useSuggestedNames: true }, 100);
    expect(out.ok && effectiveFields(fields, out.settings).map((f) => f.name)).toEqual(['agree', 'c1_1']);
  });

  it('reports every problem at once, each naming its field, and saves nothing', () => {
    const list = problems({
      fields: {
        f1_01: { name: 'same' },
        f1_02: { name: 'same', default: 'far too long' },
        country: { default: 'IT' },
        amount: { default: '12' },
        nope: { name: 'x' },
        'form1.f1_01[0]': { description: 'twice' },
        due: { name: 'form1.amount[0]' },
        office: { default: 'x' },
        c1_1: { name: 'with space' },
      },
    });
    expect(list.map((p) => p.field).sort()).toEqual(
      [
        'fields.f1_01.name',
        'fields.f1_02.name',
        'fields.f1_02.default',
        'fields.country.default',
        'fields.amount.default',
        'fields.nope',
        'fields.form1.f1_01[0]',
        'fields.due.name',
        'fields.office.default',
        'fields.c1_1.name',
      ].sort(),
    );
    for (const p of list) expect(p.message).toEqual(expect.any(String));
  });

  it('refuses more changes than the limit in one problem', () => {
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, { hidden: true }]));
    expect(problems({ fields }, NONE, 1000)).toEqual([
      expect.objectContaining({ field: 'fields', received: '5000 fields' }),
    ]);
  });

  it('refuses contradictory rules: default with constant, hidden with constant or required', () => {
    const list = problems({
      fields: {
        f1_02: { default: 'a', constant: 'b' },
        amount: { hidden: true, constant: 1 },
        country: { hidden: true, required: true },
      },
    });
    expect(list.map((p) => p.field).sort()).toEqual(
      ['fields.amount.hidden', 'fields.country.required', 'fields.f1_02.constant'].sort(),
    );
  });

  it('wants date defaults in ISO 8601, which every render locale reads alike', () => {
    expect(problems({ fields: { due: { default: '05/03/2024' } } })[0].field).toBe('fields.due.default');
    expect(patched({ fields: { due: { default: '2024-03-05' } } })['form1.due[0]']).toEqual({ default: '2024-03-05' });
  });

  it('lists the fields a patch changed, and none for a patch that changes nothing', () => {
    const out = applyFieldsPatch(FIELDS, NONE, { fields: { amount: { name: 'amount', required: false } } }, 100);
    expect(out).toEqual({ ok: true, settings: {}, changed: [] });
  });
});

describe('validateData with field settings', () => {
  const settings = patched({
    fields: {
      f1_01: { name: 'given', required: false },
      f1_02: { default: 'Doe' },
      country: { constant: 'FR' },
      amount: { hidden: true },
      due: { default: '2024-03-05', required: true },
    },
  });
  const fields = effectiveFields(FIELDS, settings);

  it('takes the new key and the PDF name, applies defaults formatted like data, draws constants', () => {
    const out = validateData(fields, { given: 'Ada' }, STRICT);
    expect(out.values).toEqual({
      'form1.f1_01[0]': { kind: 'text', text: 'Ada' },
      'form1.f1_02[0]': { kind: 'text', text: 'Doe' },
      'form1.country[0]': { kind: 'choice', value: 'FR' },
      'form1.due[0]': { kind: 'text', text: '03/05/2024' },
    });
    expect(validateData(fields, { 'form1.f1_01[0]': 'Ada' }, STRICT).values['form1.f1_01[0]']).toEqual({
      kind: 'text',
      text: 'Ada',
    });
  });

  it('keeps null as an explicit empty value over the default', () => {
    expect(validateData(fields, { f1_02: null }, LAX).values['form1.f1_02[0]']).toEqual({ kind: 'clear' });
  });

  it('honours the required override both ways', () => {
    expect(validateData(fields, {}, STRICT).warnings).toEqual([]); // f1_01 no longer required; due has a default
    const err = rejection(() => validateData(fields, { due: null }, STRICT));
    expect(err.details.field).toBe('due');
  });

  it('refuses data for a constant in both modes', () => {
    for (const mode of [LAX, STRICT]) {
      const err = rejection(() => validateData(fields, { country: 'FR' }, mode));
      expect(err.details).toMatchObject({ field: 'country', expected: expect.stringContaining('constant') });
    }
  });

  it('never draws a hidden field: a warning, or VALIDATION_ERROR in strict mode', () => {
    const out = validateData(fields, { amount: 3 }, LAX);
    expect(out.values['form1.amount[0]']).toBeUndefined();
    expect(out.warnings).toEqual(['Field "amount" is hidden; its value was ignored']);
    expect(rejection(() => validateData(fields, { amount: 3 }, STRICT)).details.field).toBe('amount');
  });

  it('names the version an unknown key belonged to', () => {
    const formerKeys = new Map([['f1_01', 1]]);
    const out = validateData(fields, { f1_01: 'x' }, { ...LAX, formerKeys });
    expect(out.warnings).toEqual(['Unknown field "f1_01" ignored: it was a key of version 1 of this template']);
    expect(out.unknownKeys).toEqual(['f1_01']);
    const err = rejection(() => validateData(fields, { f1_01: 'x' }, { ...STRICT, formerKeys }));
    expect(err.message).toContain('version 1');
  });

  it('JSON Schema: default, const, description and the required list follow the settings', () => {
    const described = effectiveFields(FIELDS, patched({ fields: { f1_02: { description: 'Family name' } } }, settings));
    const schema = renderDataJsonSchema({ name: 'x' }, { fields: described });
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(['given', 'f1_02', 'c1_1', 'country', 'due']);
    expect(props.f1_02).toMatchObject({ default: 'Doe', description: expect.stringMatching(/^Family name\n\n/) });
    expect(props.country).toMatchObject({ const: 'FR', readOnly: true, not: {} });
    expect(props.due.default).toBe('2024-03-05');
    expect(schema.required).toEqual([]);
  });
});
