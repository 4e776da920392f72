// Render data for fields the form computes (issue 23): ignored while the form's scripts run, refused in strict
// mode (every key at once), taken with calculate false; the team's defaults and required rule follow suit.
// And values the form's own checks refused, as warnings or a strict refusal.
import { describe, expect, it } from 'vitest';
import { scriptRejectionWarnings } from '../../src/modules/render-data/script-rejections.js';
import type { TemplateField } from '../../src/modules/render-data/template-field.js';
import { validateData } from '../../src/modules/render-data/validate-data.js';
import { DataValidationError } from '../../src/errors.js';

const field = (name: string, extra: Partial<TemplateField> = {}, readOnly = false): TemplateField => ({
  name,
  type: 'text',
  required: false,
  pdfMeta: { originalName: `pdf.${name}`, page: 1, ...(readOnly ? { readOnly: true } : {}) },
  detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true },
  ...extra,
});
const fields = [
  field('a'),
  field('sum', { computed: true, calculation: { kind: 'sum', reads: ['pdf.a'] }, required: true, default: 'x' }),
  field('total', { computed: true, calculation: { kind: 'custom' } }, true),
  field('locked', {}, true),
];
const opts = { strict: false, locale: 'en-US', timezone: 'UTC' };

describe('validateData: computed fields', () => {
  it('ignores them with a warning while scripts run, without their default and without calling them missing', () => {
    const out = validateData(fields, { a: '1', sum: '2', total: '3' }, opts);
    expect(Object.keys(out.values)).toEqual(['pdf.a']);
    expect(out.warnings).toEqual([
      'COMPUTED_FIELD_IGNORED: Field "sum" is computed by the form; its value was ignored',
      'COMPUTED_FIELD_IGNORED: Field "total" is computed by the form; its value was ignored',
    ]);
  });

  it('refuses every computed key at once in strict mode', () => {
    const err = (() => {
      try {
        validateData(fields, { sum: '2', total: '3' }, { ...opts, strict: true });
      } catch (e) {
        return e;
      }
    })() as DataValidationError;
    expect(err).toBeInstanceOf(DataValidationError);
    expect(err.details.field).toBe('sum');
    expect(err.details.errors?.map((e) => e.field)).toEqual(['sum', 'total']);
    expect(err.message).toContain('(and 1 more problem: see details.errors)');
  });

  it('takes them with calculate false, read-only ones too; the default and required rule apply again', () => {
    const out = validateData(fields, { total: '3' }, { ...opts, strict: true, calculate: false });
    expect(out.values['pdf.total']).toEqual({ kind: 'text', text: '3' });
    expect(out.values['pdf.sum']).toEqual({ kind: 'text', text: 'x' }); // the team's default
    // a read-only field the form does not compute is still refused
    expect(() => validateData(fields, { locked: '1' }, { ...opts, strict: true, calculate: false })).toThrow(
      /read-only/,
    );
    const required = [field('sum', { computed: true, required: true })];
    expect(() => validateData(required, {}, { ...opts, strict: true, calculate: false })).toThrow(/Required/);
    expect(validateData(required, {}, { ...opts, strict: true }).warnings).toEqual([]);
  });

  it('a hidden field stays hidden, computed or not', () => {
    const hidden = [field('sum', { computed: true, hidden: true })];
    expect(validateData(hidden, { sum: '1' }, { ...opts, calculate: false }).warnings).toEqual([
      'Field "sum" is hidden; its value was ignored',
    ]);
  });
});

describe("scriptRejectionWarnings: values the form's checks refused", () => {
  const rejections = [
    { field: 'pdf.a', value: '150', message: 'At most 100' },
    { field: 'pdf.unknown', value: 'x'.repeat(500) },
  ];
  it('warns by render key, cutting long values', () => {
    const warnings = scriptRejectionWarnings(fields, rejections, false);
    expect(warnings[0]).toBe(`SCRIPT_REJECTED_VALUE: Field "a": the form's own check refused "150": At most 100`);
    expect(warnings[1]).toMatch(/^SCRIPT_REJECTED_VALUE: Field "pdf.unknown": the form's own check refused "x{80}…"$/);
    expect(scriptRejectionWarnings(fields, undefined, true)).toEqual([]);
  });
  it("names a field by its render key when the engine names it by the analyser's key", () => {
    const analysed = [field('total_line', { pdfMeta: { originalName: 'form.total', page: 1 } })];
    const renamed = [field('grand_total', { pdfMeta: { originalName: 'form.total', page: 1 } })];
    const warn = (name: string) => scriptRejectionWarnings(renamed, [{ field: name, value: '1' }], false, analysed);
    expect(warn('total_line')[0]).toContain('Field "grand_total"');
    expect(warn('form.total')[0]).toContain('Field "grand_total"');
  });
  it('refuses in strict mode with every rejection and its message in details.errors', () => {
    expect(() => scriptRejectionWarnings(fields, rejections, true)).toThrow(DataValidationError);
    try {
      scriptRejectionWarnings(fields, rejections, true);
    } catch (e) {
      const err = e as DataValidationError;
      expect(err.details.errors).toMatchObject([
        { field: 'a', value: '150', message: 'At most 100', received: '"150"' },
        { field: 'pdf.unknown', value: `${'x'.repeat(80)}…`, message: "refused by the form's own check" },
      ]);
    }
  });
});
