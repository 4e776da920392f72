import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { XrefTable, type XrefEntry } from '../../src/pdf/writer/xref-table.js';

// The cross-reference rows of a compact render: the prefix's laid out once, the render's written over
// a copy, and the PNG Up predictor chosen per layout. Decoded here as a reader does (inflate, undo the
// predictor, split the rows by /W), every row must be the one the writer meant.

/** The rows of an encoded table: [type, field 2, field 3] per object number. */
function decode(data: Uint8Array, size: number, w2: number, w3: number, predicted: boolean): number[][] {
  const row = 1 + w2 + w3;
  let raw = inflateSync(data);
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

function expectRows(t: XrefTable, size: number, own: Map<number, XrefEntry>, freed: number[], expected: number[][]) {
  const e = t.encode(size, own, freed);
  expect(e.decodeParms).toBe(t.predict ? `/DecodeParms << /Predictor 12 /Columns ${1 + e.w2 + e.w3} >>\n` : '');
  expect(decode(e.data, size, e.w2, e.w3, t.predict)).toEqual(expected);
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

  for (const [name, prefix, rows] of [
    ['dense prefix', dense, 401],
    ['sparse prefix', sparse, 1000],
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
      expectRows(t, size, own, freed, expected);
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
      );
    });
  }

  it('predicts the dense table (smaller) and leaves the sparse one plain', () => {
    expect(new XrefTable(dense, 401, 2).predict).toBe(true);
    expect(new XrefTable(sparse, 1000, 2).predict).toBe(false);
  });
});
