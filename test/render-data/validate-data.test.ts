import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES, MAX_TEXT_CODE_POINTS, validateData } from '../../src/modules/render-data/validate-data.js';
import { DataValidationError } from '../../src/errors.js';
import type { AnalysedField, FieldDetail, FieldType } from '../../src/pdf/types.js';

let page = 0;
function field(
  name: string,
  type: FieldType,
  extra: Partial<AnalysedField> = {},
  detail: Partial<FieldDetail> = {},
): AnalysedField {
  const ft =
    type === 'checkbox' || type === 'radio' ? 'Btn' : type === 'dropdown' ? 'Ch' : type === 'signature' ? 'Sig' : 'Tx';
  return {
    name,
    type,
    required: false,
    ...extra,
    pdfMeta: { originalName: `form1.${name}`, page: ++page, ...extra.pdfMeta },
    detail: { ft, widgetCount: 1, inAcroFormFields: true, ...detail },
  };
}

const FIELDS: AnalysedField[] = [
  field('name', 'text'),
  field('zip', 'text', { maxLength: 10 }),
  field('phone', 'text', {}, { format: { kind: 'special', psf: 2 } }),
  field('agree', 'checkbox'),
  field('colour', 'radio', { options: ['Red', 'Green'] }),
  field('country', 'dropdown', { options: ['FR', 'DE', 'US'] }),
  field('city', 'dropdown', { options: ['Paris'] }, { editable: true }),
  field('langs', 'dropdown', { options: ['en', 'fr', 'de'] }, { listBox: true, multiSelect: true }),
  field('birth', 'date'),
  field('due', 'date', {}, { format: { kind: 'date', pattern: 'mm/dd/yyyy' } }),
  field(
    'amount',
    'number',
    {},
    { format: { kind: 'number', decimals: 2, sepStyle: 2, negStyle: 0, currency: ' €', currencyPrepend: false } },
  ),
  field('count', 'number'),
  field('sign', 'signature'),
  field('office', 'text', { pdfMeta: { originalName: 'form1.office', page: 1, readOnly: true } }),
];

const LAX = { strict: false, locale: 'fr-FR', timezone: 'Europe/Paris' };
const STRICT = { ...LAX, strict: true };

function rejection(run: () => unknown): DataValidationError {
  try {
    run();
  } catch (err) {
    if (err instanceof DataValidationError) return err;
    throw err;
  }
  throw new Error('expected a DataValidationError');
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');

describe('validateData: keys', () => {
  it('accepts the schema name as key and returns the value under the originalName', () => {
    expect(validateData(FIELDS, { name: 'Ada' }, LAX).values).toEqual({ 'form1.name': { kind: 'text', text: 'Ada' } });
  });
  it('accepts the pdfMeta.originalName as key', () => {
    expect(validateData(FIELDS, { 'form1.name': 'Ada' }, LAX).values['form1.name']).toEqual({
      kind: 'text',
      text: 'Ada',
    });
  });
  it('rejects a field sent under both its name and its originalName', () => {
    const err = rejection(() => validateData(FIELDS, { name: 'A', 'form1.name': 'B' }, LAX));
    expect(err.details).toMatchObject({
      field: 'form1.name',
      expected: 'one value per field',
      received: 'values under both "name" and "form1.name"',
    });
  });
  it('prefers the field whose name matches over another whose originalName matches', () => {
    const fields = [field('a', 'text', { pdfMeta: { originalName: 'b', page: 1 } }), field('b', 'text')];
    expect(Object.keys(validateData(fields, { b: 'x' }, LAX).values)).toEqual(['form1.b']);
  });
  it('ignores an unknown field with one warning in non-strict mode', () => {
    const out = validateData(FIELDS, { nope: 1, name: 'Ada' }, LAX);
    expect(out.warnings).toEqual(['Unknown field "nope" ignored']);
    expect(Object.keys(out.values)).toEqual(['form1.name']);
  });
  it('answers VALIDATION_ERROR for an unknown field in strict mode', () => {
    const err = rejection(() => validateData(FIELDS, { nope: 1 }, STRICT));
    expect(err.details).toMatchObject({
      field: 'nope',
      expected: 'a field of the template',
      received: 'unknown field',
    });
    expect(err.code).toBe('VALIDATION_ERROR');
  });
  it('treats "__proto__" as an ordinary unknown key and pollutes nothing', () => {
    const out = validateData(FIELDS, JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}'), LAX);
    expect(out.warnings).toEqual(['Unknown field "__proto__" ignored', 'Unknown field "constructor" ignored']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('fills a field whose originalName is "__proto__" as an own key', () => {
    const fields = [field('proto', 'text', { pdfMeta: { originalName: '__proto__', page: 1 } })];
    const { values } = validateData(fields, { proto: 'x' }, LAX);
    // biome-ignore lint/suspicious/noProto: the test is that a __proto__ key stays an ordinary data key
    expect(Object.hasOwn(values, '__proto__') && values.__proto__).toEqual({ kind: 'text', text: 'x' });
  });
});

describe('validateData: data and options', () => {
  it.each([
    [null, 'null'],
    [[1], 'array'],
    ['x', 'string'],
    [3, 'number'],
    [undefined, 'undefined'],
  ])('rejects data %j with received "%s"', (data, received) => {
    expect(rejection(() => validateData(FIELDS, data, LAX)).details).toMatchObject({
      field: 'data',
      expected: 'object',
      received,
    });
  });
  it('accepts an empty data object', () => {
    expect(validateData(FIELDS, {}, LAX)).toEqual({ values: {}, warnings: [], unknownKeys: [] });
  });
  it('rejects an unknown locale with field options.locale', () => {
    expect(rejection(() => validateData(FIELDS, {}, { ...LAX, locale: 'xx-XX' })).details.field).toBe('options.locale');
  });
  it('rejects a malformed locale tag en_US', () => {
    expect(rejection(() => validateData(FIELDS, {}, { ...LAX, locale: 'en_US' })).details.field).toBe('options.locale');
  });
  it('rejects an unknown time zone with field options.timezone', () => {
    const err = rejection(() => validateData(FIELDS, {}, { ...LAX, timezone: 'Europe/Atlantis' }));
    expect(err.details).toMatchObject({
      field: 'options.timezone',
      expected: 'IANA time zone, e.g. "Europe/Paris"',
      received: '"Europe/Atlantis"',
    });
  });
});

describe('validateData: types', () => {
  it('says "Field "amount" expects a number, received string" for a numeric string', () => {
    const err = rejection(() => validateData(FIELDS, { amount: '12.5' }, LAX));
    expect(err.message).toBe('Field "amount" expects a number, received string');
    expect(err.details).toMatchObject({ field: 'amount', expected: 'number', received: 'string' });
  });
  it('rejects a number for a text field, naming the JSON type', () => {
    expect(rejection(() => validateData(FIELDS, { name: 42 }, LAX)).details).toMatchObject({
      field: 'name',
      expected: 'string',
      received: 'number',
    });
  });
  it('rejects a nested object for a text field without recursing into it', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { deep };
    expect(rejection(() => validateData(FIELDS, { name: deep }, LAX)).details.received).toBe('object');
  });
  it('maps true to a checked checkbox and false to an unchecked one', () => {
    const { values } = validateData(FIELDS, { agree: true }, LAX);
    expect(values['form1.agree']).toEqual({ kind: 'check', checked: true });
    expect(validateData(FIELDS, { agree: false }, LAX).values['form1.agree']).toEqual({
      kind: 'check',
      checked: false,
    });
  });
  it('rejects "true" as a string for a checkbox', () => {
    expect(rejection(() => validateData(FIELDS, { agree: 'true' }, LAX)).details).toMatchObject({
      field: 'agree',
      expected: 'boolean',
      received: 'string',
    });
  });
  describe('a checkbox with several on-states (a Yes/No pair as one field)', () => {
    const yesNo = [field('married', 'checkbox', { options: ['Yes', 'No'] }, { onStates: ['Yes', 'No'] })];
    const expected = 'one of "Yes", "No" (the state to turn on), or false or null to clear it';
    for (const [mode, opts] of [
      ['lax', LAX],
      ['strict', STRICT],
    ] as const) {
      it(`answers VALIDATION_ERROR for true in ${mode} mode, listing the states`, () => {
        const err = rejection(() => validateData(yesNo, { married: true }, opts));
        expect(err.details).toMatchObject({ field: 'married', expected, received: 'true' });
      });
    }
    it('turns on the named state', () => {
      expect(validateData(yesNo, { married: 'No' }, STRICT).values['form1.married']).toEqual({
        kind: 'choice',
        value: 'No',
      });
    });
    it('clears the field for false and null', () => {
      expect(validateData(yesNo, { married: false }, STRICT).values['form1.married']).toEqual({
        kind: 'check',
        checked: false,
      });
      expect(validateData(yesNo, { married: null }, STRICT).values['form1.married']).toEqual({ kind: 'clear' });
    });
    it('answers VALIDATION_ERROR for a state it does not have', () => {
      expect(rejection(() => validateData(yesNo, { married: 'Maybe' }, LAX)).details).toMatchObject({
        field: 'married',
        expected,
        received: '"Maybe"',
      });
    });
  });
  it('maps a radio option to a choice', () => {
    expect(validateData(FIELDS, { colour: 'Green' }, LAX).values['form1.colour']).toEqual({
      kind: 'choice',
      value: 'Green',
    });
  });
  it('rejects a radio value not among its options, listing them', () => {
    const err = rejection(() => validateData(FIELDS, { colour: 'green' }, LAX));
    expect(err.details).toMatchObject({ field: 'colour', expected: 'one of "Red", "Green"', received: '"green"' });
    expect(err.message).toBe('Field "colour" expects one of "Red", "Green", received "green"');
  });
  describe('a radio group whose buttons share an export value (/Opt ["Sì", "Sì"])', () => {
    const shared = [field('si', 'radio', { options: ['Sì', 'Sì (2)'] }, { optionStates: ['0', '1'] })];
    for (const [mode, options] of [
      ['non-strict', LAX],
      ['strict', STRICT],
    ] as const) {
      it(`accepts every listed option in ${mode} mode`, () => {
        for (const value of ['Sì', 'Sì (2)'])
          expect(validateData(shared, { si: value }, options).values['form1.si']).toEqual({ kind: 'choice', value });
      });
    }
    it('takes a state name for the option it selects', () => {
      expect(validateData(shared, { si: '1' }, STRICT).values['form1.si']).toEqual({
        kind: 'choice',
        value: 'Sì (2)',
      });
    });
    it('prefers an option over a state name spelled the same', () => {
      const odd = [field('n', 'radio', { options: ['1', '2'] }, { optionStates: ['0', '1'] })];
      expect(validateData(odd, { n: '1' }, STRICT).values['form1.n']).toEqual({ kind: 'choice', value: '1' });
      expect(validateData(odd, { n: '0' }, STRICT).values['form1.n']).toEqual({ kind: 'choice', value: '1' });
    });
  });
  it('rejects a dropdown value not among its options even in non-strict mode', () => {
    expect(rejection(() => validateData(FIELDS, { country: 'IT' }, LAX)).details.field).toBe('country');
  });
  it('accepts free text in an editable combo box', () => {
    expect(validateData(FIELDS, { city: 'Lyon' }, LAX).values['form1.city']).toEqual({ kind: 'choice', value: 'Lyon' });
  });
  it('maps an array for a multi-select list box to choices, dropping duplicates', () => {
    expect(validateData(FIELDS, { langs: ['fr', 'en', 'fr'] }, LAX).values['form1.langs']).toEqual({
      kind: 'choices',
      values: ['fr', 'en'],
    });
  });
  it('maps a single string for a multi-select list box to one choice', () => {
    expect(validateData(FIELDS, { langs: 'de' }, LAX).values['form1.langs']).toEqual({
      kind: 'choices',
      values: ['de'],
    });
  });
  it('rejects an array holding a value outside the options', () => {
    expect(rejection(() => validateData(FIELDS, { langs: ['fr', 'es'] }, LAX)).details.received).toBe('"es"');
  });
  it('rejects an array for a single-choice dropdown', () => {
    expect(rejection(() => validateData(FIELDS, { country: ['FR'] }, LAX)).details.received).toBe('array');
  });
  it('maps null to clear for any field type', () => {
    const { values } = validateData(FIELDS, { name: null, agree: null, amount: null, sign: null }, LAX);
    expect(Object.values(values)).toEqual([{ kind: 'clear' }, { kind: 'clear' }, { kind: 'clear' }, { kind: 'clear' }]);
  });
});

describe('validateData: dates and numbers', () => {
  it('writes an ISO date in the fr-FR short date 05/03/2024', () => {
    expect(validateData(FIELDS, { birth: '2024-03-05' }, LAX).values['form1.birth']).toEqual({
      kind: 'text',
      text: '05/03/2024',
    });
  });
  it("writes a date in the field's own AFDate pattern mm/dd/yyyy", () => {
    expect(validateData(FIELDS, { due: '05/03/2024' }, LAX).values['form1.due']).toEqual({
      kind: 'text',
      text: '03/05/2024',
    });
  });
  it('moves a date-time at 23:30Z on 31 December to 1 January in Europe/Paris', () => {
    expect(validateData(FIELDS, { birth: '2024-12-31T23:30:00Z' }, LAX).values['form1.birth']).toEqual({
      kind: 'text',
      text: '01/01/2025',
    });
  });
  it('reads an en-US short date with locale en-US', () => {
    const out = validateData(FIELDS, { birth: '3/5/2024' }, { ...LAX, locale: 'en-US' });
    expect(out.values['form1.birth']).toEqual({ kind: 'text', text: '3/5/2024' });
  });
  it('rejects 2024-02-30 with the accepted formats in expected', () => {
    const err = rejection(() => validateData(FIELDS, { birth: '2024-02-30' }, LAX));
    expect(err.details).toMatchObject({
      field: 'birth',
      expected: 'date (ISO 8601 or dd/mm/yyyy)',
      received: '"2024-02-30"',
    });
  });
  it('names the en-US short date in expected for an en-US render', () => {
    const err = rejection(() => validateData(FIELDS, { birth: 'tomorrow' }, { ...LAX, locale: 'en-US' }));
    expect(err.details.expected).toBe('date (ISO 8601 or mm/dd/yyyy)');
  });
  it('rejects a 10 MB date string quickly, echoing only a clipped value', () => {
    const err = rejection(() => validateData(FIELDS, { birth: '2'.repeat(10 * 1024 * 1024) }, LAX));
    expect(err.details.received.length).toBeLessThan(50);
    expect(err.message.length).toBeLessThan(200);
  });
  it('rejects a number for a date field', () => {
    expect(rejection(() => validateData(FIELDS, { birth: 20240305 }, LAX)).details.received).toBe('number');
  });
  it("writes 1234.5 as 1.234,50 € following the field's AFNumber format", () => {
    expect(validateData(FIELDS, { amount: 1234.5 }, LAX).values['form1.amount']).toEqual({
      kind: 'text',
      text: '1.234,50 €',
    });
  });
  it('writes a number without format in the locale, with a no-break space U+00A0', () => {
    expect(validateData(FIELDS, { count: 12345.5 }, LAX).values['form1.count']).toEqual({
      kind: 'text',
      text: '12\u00a0345,5',
    });
  });
  it('rejects NaN passed by a non-JSON caller', () => {
    expect(rejection(() => validateData(FIELDS, { count: Number.NaN }, LAX)).details).toMatchObject({
      field: 'count',
      expected: 'number',
      received: 'NaN',
    });
  });
});

describe('validateData: a number field with a MaxLen (a comb)', () => {
  const combs = [
    field(
      'digits',
      'number',
      { maxLength: 2 },
      {
        comb: true,
        format: { kind: 'number', decimals: 0, sepStyle: 1, negStyle: 0, currency: '', currencyPrepend: false },
      },
    ),
  ];
  it('takes a number whose formatted text fits', () => {
    expect(validateData(combs, { digits: 12 }, STRICT).values['form1.digits']).toEqual({ kind: 'text', text: '12' });
    expect(validateData(combs, { digits: -9 }, STRICT).values['form1.digits']).toEqual({ kind: 'text', text: '-9' });
  });
  it('answers VALIDATION_ERROR in strict mode when the formatted number is longer than MaxLen', () => {
    expect(rejection(() => validateData(combs, { digits: 1234.5 }, STRICT)).details).toMatchObject({
      field: 'digits',
      expected: 'number shown in at most 2 characters',
      received: '"1235" (4 characters)',
    });
    // rounding counts: 99.5 prints "100"
    expect(rejection(() => validateData(combs, { digits: 99.5 }, STRICT)).details.field).toBe('digits');
  });
  it('cuts the formatted number to MaxLen with a warning in non-strict mode, as for text', () => {
    const out = validateData(combs, { digits: 1234.5 }, LAX);
    expect(out.values['form1.digits']).toEqual({ kind: 'text', text: '12' });
    expect(out.warnings).toEqual(['Field "digits" was cut to its maximum length of 2 characters (received 4: "1235")']);
  });
});

describe('validateData: text rules', () => {
  it('cuts text over maxLength with a warning in non-strict mode', () => {
    const out = validateData(FIELDS, { zip: '12345678901234' }, LAX);
    expect(out.values['form1.zip']).toEqual({ kind: 'text', text: '1234567890' });
    expect(out.warnings).toEqual(['Field "zip" was cut to its maximum length of 10 characters (received 14)']);
  });
  it('counts maxLength in code points, never splitting an emoji', () => {
    const out = validateData(FIELDS, { zip: '😀'.repeat(12) }, LAX);
    expect(out.values['form1.zip']).toEqual({ kind: 'text', text: '😀'.repeat(10) });
  });
  it('accepts ten emoji (20 UTF-16 units) in a field of maxLength 10 without warning', () => {
    expect(validateData(FIELDS, { zip: '😀'.repeat(10) }, LAX).warnings).toEqual([]);
  });
  it('answers VALIDATION_ERROR for text over maxLength in strict mode', () => {
    const err = rejection(() => validateData(FIELDS, { zip: '12345678901234' }, STRICT));
    expect(err.details).toMatchObject({
      field: 'zip',
      expected: 'string of at most 10 characters',
      received: 'string of 14 characters',
    });
  });
  it('refuses a 10 MB string over the hard cap even in non-strict mode, whatever the maxLength', () => {
    const err = rejection(() => validateData(FIELDS, { zip: 'x'.repeat(10 * 1024 * 1024) }, LAX));
    expect(err.details.expected).toBe(`string of at most ${MAX_TEXT_CODE_POINTS} characters`);
  });
  it('accepts a text value of exactly the hard cap', () => {
    expect(validateData(FIELDS, { name: 'é'.repeat(MAX_TEXT_CODE_POINTS) }, LAX).warnings).toEqual([]);
  });
  it('clips a 1 MB unknown key in warnings and errors', () => {
    const key = 'k'.repeat(1024 * 1024);
    expect(validateData(FIELDS, { [key]: 1 }, LAX).warnings[0].length).toBeLessThan(200);
    expect(rejection(() => validateData(FIELDS, { [key]: 1 }, STRICT)).details.field.length).toBeLessThan(200);
  });
  it('applies AFSpecial phone formatting to text: 5551234567 -> (555) 123-4567', () => {
    expect(validateData(FIELDS, { phone: '5551234567' }, LAX).values['form1.phone']).toEqual({
      kind: 'text',
      text: '(555) 123-4567',
    });
  });
  it('writes text that does not fit its AFSpecial format as sent, with a warning', () => {
    const out = validateData(FIELDS, { phone: '+33 1 23 45 67 89' }, LAX);
    expect(out.values['form1.phone']).toEqual({ kind: 'text', text: '+33 1 23 45 67 89' });
    expect(out.warnings[0]).toMatch(/^Field "phone" was written as sent: the value does not fit the field's format/);
  });
  it('caps warnings at 100 and summarises the rest', () => {
    const data = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x${i}`, 1]));
    const { warnings } = validateData(FIELDS, data, LAX);
    expect(warnings).toHaveLength(101);
    expect(warnings[100]).toBe('50 more warnings not listed');
  });
});

describe('validateData: required and read-only', () => {
  const fields = [field('must', 'text', { required: true }), ...FIELDS];
  it('warns about a missing required field in non-strict mode', () => {
    expect(validateData(fields, {}, LAX).warnings).toEqual(['Required field "must" is missing']);
  });
  it('answers VALIDATION_ERROR for a missing required field in strict mode', () => {
    expect(rejection(() => validateData(fields, {}, STRICT)).details).toMatchObject({
      field: 'must',
      expected: 'a value (the field is required)',
      received: 'nothing',
    });
  });
  it('counts null for a required field as missing', () => {
    expect(rejection(() => validateData(fields, { must: null }, STRICT)).details.received).toBe('null');
  });
  it('passes strict mode when the required field is given', () => {
    expect(validateData(fields, { must: 'ok' }, STRICT).warnings).toEqual([]);
  });
  it('ignores a value for a read-only field with a warning', () => {
    const out = validateData(FIELDS, { office: 'HQ' }, LAX);
    expect(out.values).toEqual({});
    expect(out.warnings).toEqual(['Field "office" is read-only; its value was ignored']);
  });
  it('answers VALIDATION_ERROR for a value of a read-only field in strict mode', () => {
    expect(rejection(() => validateData(FIELDS, { office: 'HQ' }, STRICT)).details.expected).toBe(
      'no value (the field is read-only)',
    );
  });
  it('does not ask for a required read-only field', () => {
    const ro = field('stamp', 'text', { required: true, pdfMeta: { originalName: 'stamp', page: 1, readOnly: true } });
    expect(validateData([ro], {}, STRICT).warnings).toEqual([]);
  });
});

describe('validateData: signatures', () => {
  it('keeps a plain-text signature as text', () => {
    expect(validateData(FIELDS, { sign: 'Ada Lovelace' }, LAX).values['form1.sign']).toEqual({
      kind: 'text',
      text: 'Ada Lovelace',
    });
  });
  it('decodes a data:image/png;base64 URL to PNG bytes', () => {
    const v = validateData(FIELDS, { sign: `data:image/png;base64,${PNG.toString('base64')}` }, LAX).values[
      'form1.sign'
    ];
    expect(v).toEqual({ kind: 'image', format: 'png', bytes: new Uint8Array(PNG) });
  });
  it('decodes a data:image/jpeg;base64 URL to JPEG bytes', () => {
    const v = validateData(FIELDS, { sign: `data:image/jpeg;base64,${JPEG.toString('base64')}` }, LAX).values[
      'form1.sign'
    ];
    expect(v).toMatchObject({ kind: 'image', format: 'jpeg' });
  });
  it('decodes bare base64 PNG bytes to an image', () => {
    expect(validateData(FIELDS, { sign: PNG.toString('base64') }, LAX).values['form1.sign']).toMatchObject({
      kind: 'image',
      format: 'png',
    });
  });
  it('decodes bare base64 JPEG bytes, with line breaks, to an image', () => {
    const b64 = JPEG.toString('base64').replace(/(.{4})/g, '$1\n');
    expect(validateData(FIELDS, { sign: b64 }, LAX).values['form1.sign']).toMatchObject({
      kind: 'image',
      format: 'jpeg',
    });
  });
  it('keeps a string that looks like base64 but is no image as text', () => {
    expect(validateData(FIELDS, { sign: 'SGVsbG8gd29ybGQ=' }, LAX).values['form1.sign']).toEqual({
      kind: 'text',
      text: 'SGVsbG8gd29ybGQ=',
    });
  });
  it('rejects a data URL of another image type (GIF)', () => {
    const err = rejection(() => validateData(FIELDS, { sign: `data:image/gif;base64,${GIF.toString('base64')}` }, LAX));
    expect(err.details.received).toBe('a data URL of type image/gif');
  });
  it('rejects a PNG data URL whose content is not a PNG or JPEG', () => {
    const err = rejection(() => validateData(FIELDS, { sign: `data:image/png;base64,${GIF.toString('base64')}` }, LAX));
    expect(err.details.received).toBe('a data URL whose content is not a PNG or JPEG image');
  });
  it('rejects a PNG data URL with broken base64', () => {
    expect(rejection(() => validateData(FIELDS, { sign: 'data:image/png;base64,@@@@' }, LAX)).details.received).toBe(
      'a data URL without valid base64 content',
    );
  });
  it('rejects a signature image over the size cap', () => {
    const big = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES + 10)]);
    const err = rejection(() => validateData(FIELDS, { sign: `data:image/png;base64,${big.toString('base64')}` }, LAX));
    expect(err.details.expected).toBe(`image of at most ${MAX_IMAGE_BYTES} bytes`);
  });
  it('refuses a 10 MB text signature over the hard cap', () => {
    expect(rejection(() => validateData(FIELDS, { sign: 'a'.repeat(10 * 1024 * 1024) }, LAX)).details.received).toBe(
      `string of more than ${MAX_TEXT_CODE_POINTS} characters`,
    );
  });
  it('rejects a boolean signature', () => {
    expect(rejection(() => validateData(FIELDS, { sign: true }, LAX)).details.received).toBe('boolean');
  });
});

describe('validateData: every problem at once', () => {
  const withRequired = [...FIELDS, field('must', 'text', { required: true })];

  it('reports each unknown key, wrong type, bad option and missing required field in details.errors (strict)', () => {
    const err = rejection(() =>
      validateData(withRequired, { nope: 1, amount: '12', colour: 'Blue', zip: '12345678901', name: 'ok' }, STRICT),
    );
    const errors = err.details.errors ?? [];
    expect(errors.map((e) => e.field)).toEqual(['nope', 'amount', 'colour', 'zip', 'must']);
    for (const e of errors) {
      expect(typeof e.expected).toBe('string');
      expect(typeof e.received).toBe('string');
      expect(e.message.length).toBeGreaterThan(0);
    }
    // the first is also details.field/expected/received, as the reference requires
    expect(err.details).toMatchObject({
      field: 'nope',
      expected: 'a field of the template',
      received: 'unknown field',
    });
    expect(errors[1]).toMatchObject({ field: 'amount', expected: 'number', received: 'string' });
    expect(errors[4]).toMatchObject({
      field: 'must',
      expected: 'a value (the field is required)',
      received: 'nothing',
    });
    expect(err.message).toMatch(/^Unknown field "nope" \(and 4 more problems: see details\.errors\)$/);
  });

  it('lists a single problem in details.errors too', () => {
    const err = rejection(() => validateData(FIELDS, { count: 'x' }, LAX));
    expect(err.details.errors).toEqual([
      { field: 'count', expected: 'number', received: 'string', message: err.message },
    ]);
  });

  it('reports wrong types of several fields in lax mode as well, and a bad locale and time zone together', () => {
    const err = rejection(() => validateData(FIELDS, { count: 'x', agree: 'yes', extra: 1 }, LAX));
    expect(err.details.errors?.map((e) => e.field)).toEqual(['count', 'agree']);
    const opts = rejection(() =>
      validateData(FIELDS, { count: 'x' }, { ...LAX, locale: 'xx-!!', timezone: 'Mars/Base' }),
    );
    expect(opts.details.errors?.map((e) => e.field)).toEqual(['options.locale', 'options.timezone', 'count']);
  });

  it('does not call a refused required field missing', () => {
    const err = rejection(() => validateData([field('must', 'number', { required: true })], { must: 'x' }, STRICT));
    expect(err.details.errors?.map((e) => e.field)).toEqual(['must']);
  });

  it('lists at most 100 problems and counts the rest in the message', () => {
    const data = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`k${i}`, i]));
    const err = rejection(() => validateData(FIELDS, data, STRICT));
    expect(err.details.errors).toHaveLength(100);
    expect(err.message).toContain('(and 249 more problems: see details.errors)');
  });
});
