// The generated table of the fallback fonts' code points (scripts/font-coverage.mjs): it must say exactly
// what the installed fonts say, and choosing a font for a character must not read the fonts before it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fontkit from '@cantoo/fontkit';
import { describe, expect, it, vi } from 'vitest';
import type { KitFont } from '../../src/pdf/fonts/font-types.js';
import { CodePointRanges, encodeRanges } from '../../src/pdf/fonts/coverage-ranges.js';
import { FALLBACK_COVERAGE } from '../../src/pdf/fonts/fallback-coverage.js';
import { FALLBACK_FILES, FontLibrary } from '../../src/pdf/fonts/font-library.js';

const require = createRequire(import.meta.url);
const fontkit = require('@cantoo/fontkit') as typeof Fontkit;

describe('code point ranges', () => {
  it('decode to the set they were made from', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    const sets: number[][] = [[], [0], [0x10ffff], [0, 1, 2, 5, 0x10fffe, 0x10ffff]];
    for (let n = 0; n < 20; n++) {
      const s = new Set<number>();
      const size = Math.floor(rand() * 500);
      for (let i = 0; i < size; i++) s.add(Math.floor(rand() * (rand() < 0.5 ? 300 : 0x110000)));
      sets.push([...s].sort((a, b) => a - b));
    }
    for (const cps of sets) {
      const ranges = new CodePointRanges(encodeRanges(cps));
      const set = new Set(cps);
      const probes = [...cps, ...cps.map((c) => c + 1), ...cps.map((c) => c - 1), 0, 1, 299, 300, 0x10ffff];
      for (const cp of probes) expect(ranges.has(cp), `${cp} in ${cps.length} code points`).toBe(set.has(cp));
    }
  });
});

describe('the fallback fonts coverage table', () => {
  it.each(FALLBACK_FILES.map((file, i) => [file, i] as const))(
    'is what %s says it draws (else run node scripts/font-coverage.mjs)',
    (file, i) => {
      const entry = FALLBACK_COVERAGE[i];
      expect(entry?.file).toBe(file);
      const bytes = readFileSync(require.resolve(file));
      expect(entry.size).toBe(bytes.length);
      const font = fontkit.create(bytes) as unknown as KitFont;
      // the test's own scan (not the generator's coveredCodePoints), so that a fault in one shows
      const cps: number[] = [];
      for (let cp = 0; cp <= 0x10ffff; cp++) if (font.hasGlyphForCodePoint(cp)) cps.push(cp);
      expect(entry.ranges).toBe(encodeRanges(cps));
    },
  );

  it('answers which font draws a character without reading the fonts before it', () => {
    const library = new FontLibrary();
    const font = vi.spyOn(library, 'font');
    const hangul = [...'한국어'].map((c) => c.codePointAt(0)!);
    const kr = FALLBACK_FILES.findIndex((f) => f.includes('noto-sans-kr'));
    expect(library.firstCovering(hangul)).toBe(kr);
    expect(font).not.toHaveBeenCalled();
    // drawing it parses that font alone
    expect(library.font(kr)?.font.hasGlyphForCodePoint(hangul[0])).toBe(true);
    expect(font.mock.calls.map(([i]) => i)).toEqual([kr]);
  });

  it('asks the fonts themselves when an installed file is not the one the table was made from', () => {
    const stale = FALLBACK_COVERAGE.map((e) => ({ ...e, size: e.size + 1 }));
    const library = new FontLibrary({ shapeCacheEntries: 16, coverage: stale });
    const font = vi.spyOn(library, 'font');
    const hangul = '한'.codePointAt(0)!;
    const kr = FALLBACK_FILES.findIndex((f) => f.includes('noto-sans-kr'));
    expect(library.firstCovering([hangul])).toBe(kr);
    expect(font.mock.calls.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('agrees with the fonts themselves on every code point of the planes in use', () => {
    const library = new FontLibrary();
    for (let i = 0; i < FALLBACK_FILES.length; i++) {
      const parsed = library.font(i)!.font;
      for (let cp = 0; cp < 0x20000; cp += i < 5 ? 1 : 3) {
        if (library.has(i, cp) !== parsed.hasGlyphForCodePoint(cp)) expect.fail(`font ${i}, U+${cp.toString(16)}`);
      }
    }
  });
});
