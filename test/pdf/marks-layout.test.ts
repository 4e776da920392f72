// Issue 27: a value of a letter and 99,999 combining marks is drawn with its first 30 marks; what comes
// after the cut must cost nothing in layout. Counted, not timed: what the text layout is given to shape.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PDFHexString } from '@cantoo/pdf-lib';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { FontSet } from '../../src/pdf/fonts/fonts.js';
import { streamSafe } from '../../src/pdf/fonts/stream-safe.js';
import { hexTextString } from '../../src/pdf/pdf-objects.js';
import { lineAndMultiLineForm } from '../helpers/hostile-pdfs.js';

const tower = `a${'\u0301'.repeat(99_999)}`;

describe('layout of a value past the stream-safe limit', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['one-line', 'one', false],
    ['multi-line', 'multi', false],
    ['one-line, previewed', 'one', true],
  ] as const)('shapes the capped text only in a %s field', async (_what, field, preview) => {
    const bytes = new Uint8Array(lineAndMultiLineForm());
    const analysis = await analyse(bytes);
    const shaped: number[] = [];
    const shape = FontSet.prototype.shape;
    vi.spyOn(FontSet.prototype, 'shape').mockImplementation(function (this: FontSet, value, base) {
      shaped.push(value.length);
      return shape.call(this, value, base);
    });
    const out = await fillPdf(bytes, analysis, {
      values: { [field]: { kind: 'text', text: tower } },
      flatten: !preview,
      watermark: preview ? 'PREVIEW' : undefined,
    });
    expect(out.warnings.join('\n')).toMatch(/99969 combining marks after the first 30 in a row are not drawn/);
    // every text the layout shapes is at most the letter and its 30 marks (a watermark's word is shorter),
    // and it is shaped a bounded number of times (font sizes tried, lines): ~31 characters of work each
    expect(shaped.length).toBeGreaterThan(0);
    expect(Math.max(...shaped)).toBeLessThanOrEqual(31);
    expect(shaped.length).toBeLessThanOrEqual(40);
  });

  it('cuts runs of marks outside the Basic Multilingual Plane by code point', () => {
    // U+1D165 MUSICAL SYMBOL COMBINING STEM: a mark of two UTF-16 units
    const stems = '\u{1D165}'.repeat(40);
    const { text, dropped } = streamSafe(`a${stems}b`);
    expect(dropped).toBe(10);
    expect(text).toBe(`a${'\u{1D165}'.repeat(30)}b`);
    expect(streamSafe(`${'\u0301'.repeat(31)}x${'\u0301'.repeat(30)}`)).toEqual({
      text: `${'\u0301'.repeat(30)}x${'\u0301'.repeat(30)}`,
      dropped: 1,
    });
  });

  it("writes a value's text string with the same bytes as pdf-lib, lone surrogates included", () => {
    for (const text of ['', 'a', 'Zoë Łódź क्षि 𝄞', 'x\ud800y', '\udc00', tower]) {
      expect(hexTextString(text).toString()).toBe(PDFHexString.fromText(text).toString());
    }
  });
});
