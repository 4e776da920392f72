// The CID font subsets of bundled fonts, and the bidi line order, seen from their own modules.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@cantoo/fontkit';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveLevels, visualOrder } from '../../src/pdf/fonts/bidi.js';
import { FontLibrary } from '../../src/pdf/fonts/font-library.js';
import { FontSet } from '../../src/pdf/fonts/fonts.js';
import type { KitFont, ParsedFont } from '../../src/pdf/fonts/font-types.js';
import { FontSubsets, UnicodeFont, withTrueCodePoints } from '../../src/pdf/fonts/unicode-font.js';
import { streamSafe } from '../../src/pdf/fonts/stream-safe.js';

const require = createRequire(import.meta.url);
const ARABIC = '@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf';

function parsed(): ParsedFont {
  const bytes = new Uint8Array(fs.readFileSync(require.resolve(ARABIC)));
  return { key: ARABIC, font: withTrueCodePoints(fontkit.create(bytes) as unknown as KitFont) };
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

// Issue 27: work per cluster is bounded whatever the value (Unicode's stream-safe limit, stream-safe.ts).
describe('shaping of values heavy in combining marks', () => {
  const shape = (text: string) => {
    const fonts = new FontSet(doc, library, new FontSubsets());
    return fonts.shape(text, fonts.standardFont(StandardFonts.Helvetica));
  };
  let doc: PDFDocument;
  const library = new FontLibrary();
  beforeAll(async () => {
    doc = await PDFDocument.create();
  });

  it('keeps at most 30 marks in a row and says how many it left out', () => {
    expect(streamSafe(`a${'\u0301'.repeat(100)}b${'\u0301'.repeat(30)}`)).toEqual({
      text: `a${'\u0301'.repeat(30)}b${'\u0301'.repeat(30)}`,
      dropped: 70,
    });
    expect(streamSafe('Zoë Łódź क्षि').dropped).toBe(0);
    const units = shape(`a${'\u0301'.repeat(99_999)}`);
    expect(units.map((u) => u.ch).join('')).toBe(`a${'\u0301'.repeat(30)}`);
  });

  it('shapes a word of 100,000 composable letter + mark pairs whole, in bounded clusters', () => {
    const word = 'e\u0301'.repeat(50_000);
    const units = shape(word);
    expect(units.map((u) => u.ch).join('')).toBe(word);
    expect(Math.max(...units.map((u) => u.glyphs?.length ?? 0))).toBeLessThanOrEqual(64 + 31);
  });

  it('still keeps a conjunct and its marks in one cluster, also in a word shaped in pieces', () => {
    expect(shape('क्षि').map((u) => u.ch)).toEqual(['क्षि']);
    // 401 characters: cut into pieces for the shaper (at 256 characters: inside a cluster, so earlier)
    expect(new Set(shape(`a${'क्षि'.repeat(100)}`).map((u) => u.ch))).toEqual(new Set(['a', 'क्षि']));
  });
});
