// The fitting rules of text-fit.ts on their own: which values stay whole, the size a line gets,
// where a cut falls, and the warning each outcome produces.
import { describe, expect, it } from 'vitest';
import {
  MIN_READABLE_SIZE,
  cutToWidth,
  fitLineSize,
  fitWarning,
  mustStayWhole,
} from '../../src/pdf/appearance/text-fit.js';
import type { AnalysedField } from '../../src/pdf/types.js';

const field = (type: AnalysedField['type'], format?: AnalysedField['detail']['format']): AnalysedField => ({
  name: 'f',
  type,
  required: false,
  pdfMeta: { originalName: 'a.f[0]', page: 1 },
  detail: { ft: 'Tx', widgetCount: 1, inAcroFormFields: true, format },
});
const chars = (s: string) => Array.from(s);
const width = (xs: string[]) => xs.length; // one unit per character
const isSpace = (c: string) => c === ' ';

describe('text-fit rules', () => {
  it('keeps amounts, dates and identifiers whole whatever the field type', () => {
    for (const v of [
      '1,234.50',
      '$1,234.50',
      '(12.00)',
      '12/31/2024',
      '2024-12-31',
      '123-45-6789',
      '€ 1.234,50',
      '45 %',
    ]) {
      expect(mustStayWhole(field('text'), v), v).toBe(true);
    }
  });

  it('keeps any value of a number or date field, or of a formatted text field, whole', () => {
    expect(mustStayWhole(field('date'), 'March 5, 2024')).toBe(true);
    expect(mustStayWhole(field('number'), 'n/a')).toBe(true);
    expect(mustStayWhole(field('text', { kind: 'special', psf: 2 }), '(555) 123-4567 ext')).toBe(true);
  });

  it('lets words and multiline values be cut', () => {
    expect(mustStayWhole(field('text'), 'John Smith')).toBe(false);
    expect(mustStayWhole(field('text'), 'Flat 3, 12 High St')).toBe(false);
    expect(mustStayWhole(field('number'), '1\n2')).toBe(false);
    expect(mustStayWhole(undefined, '')).toBe(false);
  });

  it('shrinks auto-size text to the readable minimum, then cuts', () => {
    expect(fitLineSize(10, 100, 12, 0, false)).toEqual({ size: 10, cut: false });
    expect(fitLineSize(10, 300, 12, 0, false)).toEqual({ size: 12, cut: false });
    expect(fitLineSize(100, 100, 12, 0, false)).toEqual({ size: MIN_READABLE_SIZE, cut: true });
  });

  it('cuts fixed-size text but shrinks a whole value at any size', () => {
    expect(fitLineSize(10, 100, 12, 11, false)).toEqual({ size: 11, cut: true });
    expect(fitLineSize(10, 100, 12, 11, true)).toEqual({ size: 10, cut: false });
    expect(fitLineSize(100, 100, 12, 0, true)).toEqual({ size: 1, cut: false });
  });

  it('cuts after the last whole word, or between characters for a single long word', () => {
    expect(cutToWidth(chars('John Smithson Junior'), 12, width, isSpace).join('')).toBe('John');
    expect(cutToWidth(chars('John Smithson Junior'), 13, width, isSpace).join('')).toBe('John Smithson');
    expect(cutToWidth(chars('Supercalifragilistic'), 5, width, isSpace).join('')).toBe('Super');
    expect(cutToWidth(chars('abc'), 0.5, width, isSpace)).toEqual([]);
  });

  it('names the field in its warnings, cut first, shrink otherwise', () => {
    expect(fitWarning('total', [{ cut: false }])).toBeUndefined();
    expect(fitWarning('total', [{ cut: false, shrunkTo: 3.46 }])).toBe(
      'field "total": the value is drawn at 3.4 pt, below the readable 6 pt, as the field is too small for it',
    );
    expect(
      fitWarning('notes', [
        { cut: false, shrunkTo: 4 },
        { cut: true, lines: { shown: 2, total: 5 } },
      ]),
    ).toBe('field "notes": the text does not fit the field and is cut off (2 of 5 lines shown)');
  });
});
