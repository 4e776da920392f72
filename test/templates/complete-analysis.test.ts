import { describe, expect, it } from 'vitest';
import { withPlacement } from '../../src/modules/templates/complete-analysis.js';
import type { AnalysedField, TemplateAnalysis } from '../../src/pdf/types.js';

const field = (name: string, originalName: string, extra: Partial<AnalysedField> = {}): AnalysedField => ({
  name,
  type: 'text',
  required: false,
  pdfMeta: { originalName, page: 1 },
  detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true },
  ...extra,
});
const analysis = (fields: AnalysedField[]): TemplateAnalysis => ({
  fields,
  pageCount: 2,
  encrypted: false,
  hasXfa: false,
});

describe('withPlacement (completing analyses stored before labels and rectangles)', () => {
  it('takes only label and placement from the new analysis, keeping names, types and options as stored', () => {
    const stored = analysis([
      field('city', 'form.city', { maxLength: 20 }),
      field('kind', 'form.kind', { type: 'dropdown', options: ['a', 'b'] }),
      field('gone', 'form.gone'),
    ]);
    const fresh = analysis([
      // an analyser that now names and types things differently must not change the contract
      field('form_city', 'form.city', {
        type: 'date',
        label: 'City of birth',
        pdfMeta: {
          originalName: 'form.city',
          page: 1,
          rect: [10, 20, 110, 40],
          widgets: [
            { page: 1, rect: [10, 20, 110, 40] },
            { page: 2, rect: [10, 20, 110, 40] },
          ],
        },
      }),
      field('kind', 'form.kind', {
        type: 'dropdown',
        options: ['a', 'b', 'c'],
        label: null,
        pdfMeta: { originalName: 'form.kind', page: 1, rect: [0, 0, 5, 5], editable: true },
      }),
    ]);
    const done = withPlacement(stored, fresh);
    expect(done.fields.map((f) => [f.name, f.type, f.options, f.maxLength])).toEqual([
      ['city', 'text', undefined, 20],
      ['kind', 'dropdown', ['a', 'b'], undefined],
      ['gone', 'text', undefined, undefined],
    ]);
    expect(done.fields[0].label).toBe('City of birth');
    expect(done.fields[0].pdfMeta).toEqual({
      originalName: 'form.city',
      page: 1,
      rect: [10, 20, 110, 40],
      widgets: [
        { page: 1, rect: [10, 20, 110, 40] },
        { page: 2, rect: [10, 20, 110, 40] },
      ],
    });
    expect(done.fields[1]).toMatchObject({ label: null, pdfMeta: { rect: [0, 0, 5, 5], editable: true } });
    // a field the new analysis does not find: null label, empty rectangle, never a guess
    expect(done.fields[2]).toMatchObject({ label: null, pdfMeta: { rect: [0, 0, 0, 0] } });
    expect(done.pageCount).toBe(2);
  });

  it('takes label source, suggested key and option labels, matching option labels by value', () => {
    const stored = analysis([
      field('colour', 'form.colour', { type: 'radio', options: ['r', 'b'] }),
      field('gone', 'form.gone'),
      field('city', 'form.city'),
    ]);
    const fresh = analysis([
      field('colour', 'form.colour', {
        type: 'radio',
        options: ['b', 'r', 'g'],
        optionLabels: ['Blue', 'Red', 'Green'],
        label: 'Colour',
        labelSource: 'page',
        suggestedName: 'gone',
      }),
      field('city', 'form.city', { label: null, labelSource: 'none', suggestedName: 'city' }),
    ]);
    const done = withPlacement(stored, fresh);
    expect(done.fields[0]).toMatchObject({ label: 'Colour', labelSource: 'page', optionLabels: ['Red', 'Blue'] });
    // the field the new analysis lost falls back to its own key, kept unique
    expect(done.fields.map((f) => f.suggestedName)).toEqual(['gone', 'gone_2', 'city']);
    expect(done.fields[1]).toMatchObject({ label: null, labelSource: 'none' });
  });

  it("takes the fields' script keys and the form's scripts from the new analysis (issue 23)", () => {
    const stored = analysis([
      field('total', 'form.total', { pdfMeta: { originalName: 'form.total', page: 1, readOnly: true } }),
      field('a', 'form.a'),
    ]);
    const fresh: TemplateAnalysis = {
      ...analysis([
        field('total', 'form.total', {
          computed: true,
          calculation: { kind: 'sum', reads: ['form.a'] },
          scripts: { format: 'AFNumber' },
          unsupportedScripts: [{ action: 'validate', api: 'xfa', reason: 'r' }],
        }),
        field('a', 'form.a'),
      ]),
      scripts: { calculationOrder: ['form.total'], document: [{ name: 'init', functions: ['f'] }] },
    };
    const done = withPlacement(stored, fresh);
    expect(done.fields[0]).toMatchObject({
      name: 'total',
      computed: true,
      calculation: { kind: 'sum', reads: ['form.a'] },
      scripts: { format: 'AFNumber' },
      unsupportedScripts: [{ action: 'validate', api: 'xfa' }],
      pdfMeta: { readOnly: true },
    });
    expect(done.fields[1]).not.toHaveProperty('computed');
    expect(done.fields[1]).not.toHaveProperty('scripts');
    expect(done.scripts).toEqual(fresh.scripts);
  });
});
