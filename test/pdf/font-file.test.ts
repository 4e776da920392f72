// The fallback fonts read as they are used (font-file.ts): a font parsed from the lazily read file must
// shape, measure, draw and subset exactly as fontkit does with the whole file in memory, and outlines
// nobody asked for must stay unread.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as Fontkit from '@cantoo/fontkit';
import { describe, expect, it } from 'vitest';
import { openFontFile } from '../../src/pdf/fonts/font-file.js';
import { FALLBACK_FILES } from '../../src/pdf/fonts/font-library.js';
import type { KitFont } from '../../src/pdf/fonts/font-types.js';

const require = createRequire(import.meta.url);
const fontkit = require('@cantoo/fontkit') as typeof Fontkit;

interface Full extends KitFont {
  characterSet: number[];
  numGlyphs: number;
  loca: { offsets: number[] };
  getGlyph(id: number): (KitGlyph & { _decode(): { numberOfContours: number } | null }) | null;
}
type KitGlyph = { id: number; codePoints: number[]; path: { toSVG(): string }; bbox: unknown; advanceWidth: number };

const installed = FALLBACK_FILES.map((f) => {
  try {
    return require.resolve(f);
  } catch {
    return undefined;
  }
}).filter((f): f is string => f !== undefined);

/** Every `step`-th element, at most `max`. */
const sample = <T>(xs: T[], max: number): T[] =>
  xs.filter((_, i) => i % Math.max(1, Math.floor(xs.length / max)) === 0).slice(0, max);

describe('fallback font files read as they are used', () => {
  it('finds the bundled fonts', () => expect(installed.length).toBeGreaterThanOrEqual(8));

  for (const file of installed) {
    const name = file.replace(/.*\//, '');
    it(`${name}: same loca, shaping, widths, outlines and subsets as the whole file`, () => {
      const whole = fontkit.create(readFileSync(file)) as unknown as Full;
      const lazyFile = openFontFile(file);
      const lazy = lazyFile.attach(fontkit.create(lazyFile.bytes) as unknown as KitFont) as Full;

      expect(Array.from(lazy.loca.offsets)).toEqual(whole.loca.offsets);
      // read from the post table's header, not through fontkit's decode of the table
      expect(Object.getOwnPropertyDescriptor(lazy, 'italicAngle')?.value).toBe(whole.italicAngle);
      expect([lazy.ascent, lazy.descent, lazy.capHeight]).toEqual([whole.ascent, whole.descent, whole.capHeight]);

      const cps = sample(whole.characterSet, 240);
      const text = String.fromCodePoint(...cps);
      const a = whole.layout(text);
      const b = lazy.layout(text);
      expect(b.glyphs.map((g) => g.id)).toEqual(a.glyphs.map((g) => g.id));
      expect(b.positions).toEqual(a.positions);
      expect(b.glyphs.map((g) => g.advanceWidth)).toEqual(a.glyphs.map((g) => g.advanceWidth));

      // composite glyphs draw others: their outlines (fontkit reads the parts itself) and subsets
      const composites: number[] = [];
      for (let gid = 0; gid < whole.numGlyphs && composites.length < 40; gid++)
        if ((whole.getGlyph(gid)?._decode()?.numberOfContours ?? 0) < 0) composites.push(gid);
      if (!/SC|KR/.test(name)) expect(composites.length, 'composite glyphs').toBeGreaterThan(0);
      const ids = [...new Set([...b.glyphs.map((g) => g.id), ...composites])];
      // outlines are compared on a fresh lazy font: the first reads of each glyph are the ones at stake
      const fresh = openFontFile(file);
      const freshFont = fresh.attach(fontkit.create(fresh.bytes) as unknown as KitFont) as Full;
      for (const gid of sample(ids, 120)) {
        expect(freshFont.getGlyph(gid)?.path.toSVG(), `glyph ${gid}`).toBe(whole.getGlyph(gid)?.path.toSVG());
        expect(freshFont.getGlyph(gid)?.bbox).toEqual(whole.getGlyph(gid)?.bbox);
      }

      const subsetOf = (font: KitFont) => {
        const s = font.createSubset();
        for (const gid of ids) s.includeGlyph(gid);
        return Buffer.from(s.encode());
      };
      const third = openFontFile(file);
      expect(subsetOf(third.attach(fontkit.create(third.bytes) as unknown as KitFont)).equals(subsetOf(whole))).toBe(
        true,
      );
    });
  }

  it('leaves the outlines of glyphs never used unread (the CJK font: a few pages, not 6 MB)', () => {
    const file = installed.find((f) => f.includes('NotoSansKR'));
    expect(file).toBeDefined();
    const onDisk = readFileSync(file!);
    const lazyFile = openFontFile(file!);
    const font = lazyFile.attach(fontkit.create(lazyFile.bytes) as unknown as KitFont) as Full;
    font.layout('안녕하세요');
    const nonZero = (b: Uint8Array) => b.reduce((n, x) => n + (x === 0 ? 0 : 1), 0);
    expect(nonZero(lazyFile.bytes)).toBeLessThan(nonZero(onDisk) / 5);
    // a glyph used later is read then, and only it
    const last = font.numGlyphs - 1;
    const { offsets } = font.loca;
    const glyf = (font as unknown as { directory: { tables: { glyf: { offset: number } } } }).directory.tables.glyf;
    const range = [glyf.offset + offsets[last], glyf.offset + offsets[last + 1]] as const;
    expect(range[1]).toBeGreaterThan(range[0]);
    expect(nonZero(lazyFile.bytes.subarray(...range))).toBe(0);
    font.getGlyph(last);
    expect(Buffer.from(lazyFile.bytes.subarray(...range)).equals(onDisk.subarray(...range))).toBe(true);
  });

  it('reads every outline at once for a fontkit without the method it hooks', () => {
    const file = installed.find((f) => f.includes('NotoSansHebrew'))!;
    const lazyFile = openFontFile(file);
    const font = fontkit.create(lazyFile.bytes) as unknown as KitFont;
    // another fontkit: no _getBaseGlyph to wrap
    Object.defineProperty(font, '_getBaseGlyph', { value: undefined });
    lazyFile.attach(font);
    expect(Buffer.from(lazyFile.bytes).equals(readFileSync(file))).toBe(true);
  });

  it('refuses to read outlines from a file replaced since it was first read', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'font-file-'));
    try {
      const file = path.join(dir, 'font.ttf');
      copyFileSync(installed.find((f) => f.includes('NotoSansHebrew'))!, file);
      const lazyFile = openFontFile(file);
      const font = lazyFile.attach(fontkit.create(lazyFile.bytes) as unknown as KitFont) as Full;
      const before = font.layout('שלום').glyphs.map((g) => g.id);
      expect(before.length).toBe(4);
      // an upgrade writes a new file and renames it over the old one
      copyFileSync(installed.find((f) => f.includes('NotoSansThai'))!, `${file}.new`);
      renameSync(`${file}.new`, file);
      expect(() => font.layout('אבגדהוזחטיכלמנסעפצקרשת')).toThrow(/changed since it was first read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a slanted font's italic angle from its post table as fontkit decodes it", () => {
    // the bundled fonts are upright (angle 0): a copy with a negative 16.16 angle in the post table's header
    const dir = mkdtempSync(path.join(tmpdir(), 'font-file-'));
    try {
      const bytes = Buffer.from(readFileSync(installed.find((f) => f.includes('NotoSansHebrew'))!));
      const count = bytes.readUInt16BE(4);
      let post = -1;
      for (let i = 0; i < count; i++)
        if (bytes.toString('latin1', 12 + i * 16, 16 + i * 16) === 'post') post = bytes.readUInt32BE(20 + i * 16);
      expect(post).toBeGreaterThan(0);
      bytes.writeInt32BE(Math.round(-12.25 * 65536), post + 4); // (sfnt checksums are not checked by readers)
      const file = path.join(dir, 'slanted.ttf');
      writeFileSync(file, bytes);
      const lazyFile = openFontFile(file);
      const lazy = lazyFile.attach(fontkit.create(lazyFile.bytes) as unknown as KitFont);
      expect(lazy.italicAngle).toBe(-12.25);
      expect((fontkit.create(readFileSync(file)) as unknown as KitFont).italicAngle).toBe(-12.25);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a file that is no TrueType font whole, as it is', () => {
    const file = require.resolve('@cantoo/fontkit/package.json');
    expect(Buffer.from(openFontFile(file).bytes).equals(readFileSync(file))).toBe(true);
  });
});
