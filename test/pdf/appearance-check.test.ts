// brokenOnAppearance: which existing checkbox on-appearances show no proper mark in every viewer.
import { PDFDocument, type PDFRef, type PDFStream } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { brokenOnAppearance } from '../../src/pdf/appearance/appearance-check.js';

const doc = await PDFDocument.create();
const ctx = doc.context;
const helv = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' }));
const zadb = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'ZapfDingbats' }));

function form(content: string, fonts: Record<string, PDFRef> = {}): PDFStream {
  return ctx.stream(content, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 10, 10], Resources: { Font: fonts } });
}

const FRAME = '0 G 0.5 0.5 9 9 re S';

describe('brokenOnAppearance', () => {
  it('flags an on-appearance that paints nothing', () => {
    expect(brokenOnAppearance(form('q Q'), '4')).toBe('draws nothing');
  });

  it('flags text shown with a font missing from the stream resources', () => {
    expect(brokenOnAppearance(form(`${FRAME} BT /ZaDb 8 Tf 1 1 Td (4) Tj ET`), '4')).toMatch(/resources lack/);
  });

  it('flags text shown with an empty font name (Scribus)', () => {
    expect(brokenOnAppearance(form(`${FRAME} BT / 12 Tf 1 1 Td (l) Tj ET`, { Fo0: helv }), 'l')).toMatch(
      /resources lack/,
    );
  });

  it('flags the check character shown in a font that is not ZapfDingbats', () => {
    expect(brokenOnAppearance(form(`${FRAME} BT /Helv 8 Tf 1 1 Td (4) Tj ET`, { Helv: helv }), '4')).toMatch(
      /not ZapfDingbats/,
    );
  });

  it('flags an on-appearance without a /BBox, or with one of no area (viewers skip it)', () => {
    const mark = `${FRAME} BT /ZaDb 8 Tf 1 1 Td (4) Tj ET`;
    expect(brokenOnAppearance(ctx.stream(mark, { Subtype: 'Form', Resources: { Font: { ZaDb: zadb } } }), '4')).toBe(
      'has no /BBox',
    );
    const flat = ctx.stream(mark, { Subtype: 'Form', BBox: [0, 0, 10, 0], Resources: { Font: { ZaDb: zadb } } });
    expect(brokenOnAppearance(flat, '4')).toBe('has an empty /BBox');
  });

  it('flags an on-appearance that draws exactly what Off draws', () => {
    expect(brokenOnAppearance(form(FRAME), '4', form(`${FRAME}\n`))).toBe('looks the same as Off');
  });

  it('accepts the check character in ZapfDingbats', () => {
    expect(
      brokenOnAppearance(form(`${FRAME} BT /ZaDb 8 Tf 1 1 Td (4) Tj ET`, { ZaDb: zadb }), '4', form(FRAME)),
    ).toBeUndefined();
  });

  it('accepts a vector check mark', () => {
    expect(brokenOnAppearance(form(`${FRAME} 2 5 m 4 2 l 8 8 l S`), '4', form(FRAME))).toBeUndefined();
  });

  it('reads operators inside strings as text, not as painting', () => {
    expect(brokenOnAppearance(form('BT /X 8 Tf (f S re) Tj ET'), '4')).toMatch(/resources lack/);
  });
});
