// The standard faces' widths come from a generated table (scripts/standard-widths.mjs): it must say
// exactly what pdf-lib's AFM tables say, code for code, and measuring must not read a face's AFM.
import { StandardFontEmbedder } from '@cantoo/pdf-lib';
import { FontNames } from '@cantoo/pdf-lib/standard-fonts';
import { describe, expect, it } from 'vitest';
import { FaceMetrics, encodingOf } from '../../src/pdf/fonts/standard-metrics.js';

const faces = Object.values(FontNames) as string[];

describe('standard faces: the generated widths', () => {
  it('covers the 14 faces', () => expect(faces).toHaveLength(14));

  for (const face of faces) {
    it(`${face}: the encoding and every width are pdf-lib's`, () => {
      const embedder = StandardFontEmbedder.for(face as Parameters<typeof StandardFontEmbedder.for>[0]);
      const afmWidth = (name: string) =>
        (embedder as unknown as { widthOfGlyph(n: string): number }).widthOfGlyph(name);
      expect(encodingOf(face).name).toBe(embedder.encoding.name);
      const metrics = new FaceMetrics(face, {
        widthOfGlyph: () => {
          throw new Error('the AFM was read');
        },
      });
      const supported = embedder.encoding.supportedCodePoints;
      expect(supported.length).toBeGreaterThan(150);
      for (const cp of supported) {
        const { code, name } = embedder.encoding.encodeUnicodeCodePoint(cp);
        const g = metrics.glyph(String.fromCodePoint(cp));
        expect(g.w, `${face} U+${cp.toString(16)} (${name})`).toBe(afmWidth(name) / 1000);
        expect(g.hex).toBe(code.toString(16).padStart(2, '0').toUpperCase());
      }
      // a character a text face cannot encode is drawn as "?", at its width
      if (face === 'Symbol' || face === 'ZapfDingbats') return;
      const q = embedder.encoding.encodeUnicodeCodePoint(0x3f);
      expect(metrics.glyph('\u4e00').w).toBe(afmWidth(q.name) / 1000);
    });
  }

  it('asks the face itself for a face the table does not have', () => {
    const metrics = new FaceMetrics('Helvetica-Narrow', { widthOfGlyph: (name) => (name === 'A' ? 555 : 0) });
    expect(metrics.glyph('A').w).toBe(0.555);
  });
});
