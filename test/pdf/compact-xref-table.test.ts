import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { byteWidth, UNFILTERED_BELOW_BYTES, XrefTable, type XrefEntry } from '../../src/pdf/writer/xref-table.js';

// The cross-reference rows of a compact render: the prefix's laid out once, the render's written over
// a copy, the PNG Up predictor chosen per layout, and a small table left unfiltered. Decoded here as a
// reader does (inflate when filtered, undo the predictor, split the rows by /W), every row must be the one
// the writer meant.

/** The rows of an encoded table: [type, field 2, field 3] per object number. */
function decode(data: Uint8Array, size: number, w2: number, w3: number, predicted: boolean): number[][] {
  const row = 1 + w2 + w3;
  let raw = Buffer.from(data);
  if (predicted) {
    const out = Buffer.alloc(size * row);
    for (let r = 0; r < size; r++) {
      expect(raw[r * (row + 1)]).toBe(2); // PNG Up on every row
      for (let i = 0; i < row; i++) {
        const up = r ? out[(r - 1) * row + i] : 0;
        out[r * row + i] = (raw[r * (row + 1) + 1 + i] + up) & 0xff;
      }
    }
    raw = out;
  }
  expect(raw.length).toBe(size * row);
  const rows: number[][] = [];
  for (let r = 0; r < size; r++) {
    const at = r * row;
    rows.push([raw[at], raw.readUIntBE(at + 1, w2), raw.readUIntBE(at + 1 + w2, w3)]);
  }
  return rows;
}

/** `unfiltered`: the table is expected without a filter (and so without a predictor). */
function expectRows(
  t: XrefTable,
  size: number,
  own: Map<number, XrefEntry>,
  freed: number[],
  expected: number[][],
  unfiltered: boolean,
) {
  const e = t.encode(size, own, freed);
  const row = 1 + e.w2 + e.w3;
  const parms = t.predict ? `/DecodeParms << /Predictor 12 /Columns ${row} >>\n` : '';
  expect(e.filterEntries).toBe(unfiltered ? '' : `/Filter /FlateDecode\n${parms}`);
  const data = unfiltered ? e.data : inflateSync(e.data);
  expect(decode(data, size, e.w2, e.w3, t.predict && !unfiltered)).toEqual(expected);
}

describe('cross-reference stream of a compact render', () => {
  // A dense prefix: objects one after another at growing offsets, then an object stream's members.
  const dense = new Map<number, XrefEntry>();
  for (let n = 1; n < 400; n++) dense.set(n, n < 200 ? [1, 15 + n * 97 + ((n * n) % 61), 0] : [2, 400, n - 200]);
  // A sparse one: a few objects far apart.
  const sparse = new Map<number, XrefEntry>([
    [1, [1, 15, 0]],
    [900, [1, 300, 0]],
  ]);

  // A small form's: a few dozen objects, a table of a few hundred bytes.
  const small = new Map<number, XrefEntry>();
  for (let n = 1; n < 40; n++) small.set(n, [1, 15 + n * 120, 0]);

  for (const [name, prefix, rows, unfiltered] of [
    ['dense prefix', dense, 401, false],
    ['sparse prefix', sparse, 1000, false],
    ['small table, unfiltered', small, 40, true],
  ] as const) {
    it(`writes the prefix's rows, the render's over them and freed ones as free (${name})`, () => {
      const t = new XrefTable(prefix, rows, 2);
      const size = rows + 3;
      const own = new Map<number, XrefEntry>([
        [1, [1, 70_000, 0]], // a prefix object the render rewrote, beyond 16 bits: field 2 widens
        [rows, [1, 70_500, 0]],
        [rows + 2, [1, 71_000, 0]],
      ]);
      const freed = [2, 3];
      const expected: number[][] = [];
      for (let n = 0; n < size; n++) {
        const e = own.get(n) ?? (freed.includes(n) ? undefined : prefix.get(n));
        expected.push(n === 0 ? [0, 0, 65535] : e ? [...e] : [0, 0, 0]);
      }
      expectRows(t, size, own, freed, expected, unfiltered);
      // the laid-out prefix is copied, never changed: a second render sees it whole
      const second = new Map<number, XrefEntry>([[rows + 1, [1, 500, 0]]]);
      expectRows(
        t,
        size,
        second,
        [],
        expected.map((r, n) =>
          n === rows + 1 ? [1, 500, 0] : (second.get(n) ?? (n === 0 ? r : (prefix.get(n) ?? [0, 0, 0]))).slice(),
        ),
        unfiltered,
      );
    });
  }

  it("writes a small form's table unfiltered and a larger one deflated", () => {
    expect(new XrefTable(small, 40, 2).encode(42, new Map(), []).filterEntries).toBe('');
    expect(new XrefTable(dense, 401, 2).encode(402, new Map(), []).filterEntries).toMatch(
      /^\/Filter \/FlateDecode\n\/DecodeParms << \/Predictor 12 /,
    );
    expect(new XrefTable(sparse, 1000, 2).encode(1001, new Map(), []).filterEntries).toBe('/Filter /FlateDecode\n');
  });

  it('deflates a table of 512 bytes or more, and leaves a shorter one unfiltered', () => {
    expect(UNFILTERED_BELOW_BYTES).toBe(512);
    const t = new XrefTable(small, 40, 5); // offsets 5 bytes wide: rows of 1 + 5 + 2 bytes
    const below = t.encode(63, new Map(), []);
    expect([below.data.length, below.filterEntries]).toEqual([504, '']);
    const at = t.encode(64, new Map(), []);
    expect(at.filterEntries).toMatch(/^\/Filter \/FlateDecode\n/);
    expect(inflateSync(at.data).length).toBe(t.predict ? 64 * 9 : 512);
  });

  it('sizes each field to the bytes its largest value needs', () => {
    const widths = [0, 255, 256, 65535, 65536, 2 ** 24 - 1, 2 ** 24, 2 ** 32 - 1, 2 ** 32, 2 ** 40, 2 ** 48 - 1].map(
      byteWidth,
    );
    expect(widths).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 6]);
  });

  it('predicts the dense table (smaller) and not the sparse one', () => {
    expect(new XrefTable(dense, 401, 2).predict).toBe(true);
    expect(new XrefTable(sparse, 1000, 2).predict).toBe(false);
  });
});
