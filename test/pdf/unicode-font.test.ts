// The CID font subsets of bundled fonts, and the bidi line order, seen from their own modules.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@cantoo/fontkit';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it, vi } from 'vitest';
import { resolveLevels, visualOrder } from '../../src/pdf/fonts/bidi.js';
import { FontLibrary } from '../../src/pdf/fonts/font-library.js';
import { FontSet } from '../../src/pdf/fonts/fonts.js';
import type { KitFont, ParsedFont } from '../../src/pdf/fonts/font-types.js';
import { FontSubsets, UnicodeFont, withTrueCodePoints } from '../../src/pdf/fonts/unicode-font.js';

const require = createRequire(import.meta.url);
const ARABIC = '@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf';

function parsed(): ParsedFont {
  const bytes = new Uint8Array(fs.readFileSync(require.resolve(ARABIC)));
  return { key: ARABIC, bytes, font: withTrueCodePoints(fontkit.create(bytes) as unknown as KitFont) };
}

describe('UnicodeFont', () => {
  it('reuses the encoded subset of a document while renders need no new glyph, and re-encodes when they do', async () => {
    const doc = await PDFDocument.create();
    const font = parsed();
    const state = new FontSubsets();
    const subsets = vi.spyOn(font.font, 'createSubset');
    const glyphs = font.font.layout('مرحبا').glyphs;

    const first = new UnicodeFont(doc, font, state);
    const cids = glyphs.map((g) => first.cid(g.id, g.codePoints));
    await first.embed();
    expect(subsets).toHaveBeenCalledTimes(1);

    // the next render of the same document (template): same CIDs, no new subset
    const second = new UnicodeFont(doc, font, state);
    expect(glyphs.map((g) => second.cid(g.id, g.codePoints))).toEqual(cids);
    await second.embed();
    expect(subsets).toHaveBeenCalledTimes(1);

    const third = new UnicodeFont(doc, font, state);
    const more = font.font.layout('عالم').glyphs;
    for (const g of more) third.cid(g.id, g.codePoints);
    await third.embed();
    expect(subsets).toHaveBeenCalledTimes(2);
  });

  it('gives one glyph standing for two letters two CIDs, each mapped to its own letter', async () => {
    const doc = await PDFDocument.create();
    const font = new UnicodeFont(doc, parsed(), new FontSubsets());
    expect(font.cid(53, [0x641])).not.toBe(font.cid(53, [0x642]));
    expect(font.cid(53, [0x641])).toBe(font.cid(53, [0x641]));
  });
});

describe('bidi line order', () => {
  it('keeps digits left to right inside right-to-left text', async () => {
    const doc = await PDFDocument.create();
    const fonts = new FontSet(doc, new FontLibrary(), new FontSubsets());
    const text = 'رقم 123 فاتورة';
    const units = fonts.shape(text, fonts.standardFont(StandardFonts.Helvetica));
    const visual = visualOrder(units)
      .map((u) => u.ch)
      .join('');
    // visual order, left to right: the last word first, the digits as written, the first word last
    expect(visual).toBe(`${[...'فاتورة'].reverse().join('')} 123 ${[...'رقم'].reverse().join('')}`);
    expect(resolveLevels('plain Latin')).toBeUndefined();
  });
});
