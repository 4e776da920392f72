// Which bundled fallback font draws a character: the first of the chain that has it, found by asking the
// fonts in order, so a value the first font covers never reads the others (the Chinese font alone is 10 MB).
import { describe, expect, it } from 'vitest';
import { FALLBACK_FILES, FontLibrary } from '../../src/pdf/fonts/font-library.js';
import type { ParsedFont } from '../../src/pdf/fonts/font-types.js';

/** A library that records which fallback fonts it parsed. */
class RecordingLibrary extends FontLibrary {
  readonly asked = new Set<number>();
  override font(index: number): ParsedFont | null {
    this.asked.add(index);
    return super.font(index);
  }
}

const cps = (text: string) => [...text].map((c) => c.codePointAt(0)!);

describe('FontLibrary.firstCovering', () => {
  it('parses only the first fallback font for a value it covers (Latin, Greek, IPA: atril corpus form)', () => {
    const library = new RecordingLibrary();
    expect(library.firstCovering(cps('salad\u03c0\u02ac!'))).toBe(0);
    expect([...library.asked]).toEqual([0]);
  });

  it('answers the first font of the chain that has every character, as asking every font would', () => {
    const library = new FontLibrary();
    const samples = [
      'A',
      '\u03c0',
      '\u0645\u0631\u062d\u0628\u0627', // Arabic
      '\u05e9\u05dc\u05d5\u05dd', // Hebrew
      '\u0928\u092e\u0938\u094d\u0924\u0947', // Devanagari
      '\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35', // Thai
      '\u4f60\u597d', // Chinese
      '\ud55c\uad6d\uc5b4', // Korean
      '\u2654', // chess king: a symbol font
      'A\u0645', // no one font has both
      '\u{10ffff}', // no font has it
    ];
    for (const text of samples) {
      const points = cps(text);
      const brute = FALLBACK_FILES.findIndex((_, i) =>
        points.every((cp) => new FontLibrary().font(i)?.font.hasGlyphForCodePoint(cp) ?? false),
      );
      expect(library.firstCovering(points), text).toBe(brute);
      for (let i = 0; i < FALLBACK_FILES.length; i++)
        expect(library.has(i, points[0]), `${text} in font ${i}`).toBe(
          new FontLibrary().font(i)?.font.hasGlyphForCodePoint(points[0]) ?? false,
        );
    }
  });
});
