// The cross-reference stream of a compact render (PDF 32000-1, 7.5.8). Most of its rows are the
// prefix's, the same in every output of a template version: they are laid out once per field width
// and copied, and a render writes only its own rows over the copy (filling every row per render was
// a third of a small form's render). Whether the rows go through the PNG Up predictor is decided
// once per layout, on the prefix's rows: offsets that grow row by row shrink to small differences
// that compress 2-5x better, while sparse tables (few objects per number) compress better unpredicted.
// Deflate runs at level 1: on these tables level 6 cost 5-15x the time for 5-15 % fewer bytes. A table
// under UNFILTERED_BELOW_BYTES has no filter at all (decided per render, on its own table): a small form's
// is 300-350 bytes, where deflate saved ~200 bytes and cost 25-40 us a render (mostly node's set-up of a
// zlib stream), ~8 % of a small form's fill.
import { deflateSync } from 'node:zlib';

/** One entry: type (0 free, 1 at an offset, 2 in an object stream), field 2, field 3 (7.5.8.3). */
export type XrefEntry = readonly [0 | 1 | 2, number, number];

const LEVEL = 1;
/**
 * Tables shorter than this are written unfiltered; tables this long or longer are deflated. At 1 KB (a
 * sparse prefix, free rows between its objects) the unfiltered table cost a 3 KB output 20 % more bytes.
 */
export const UNFILTERED_BELOW_BYTES = 512;
/** PNG Up predictor, per row (what /Predictor 12 names; every row starts with its filter type, 2). */
const PNG_UP = 2;

/** Bytes needed to write n big-endian. */
export function byteWidth(n: number): number {
  if (n < 0x100) return 1;
  if (n < 0x10000) return 2;
  if (n < 0x1000000) return 3;
  let w = 4;
  while (n >= 2 ** (8 * w)) w++;
  return w;
}

export interface EncodedXref {
  /** the rows as written: deflated, or as they are when the table is small */
  data: Uint8Array;
  /** the /W array's widths of fields 2 and 3 */
  w2: number;
  w3: number;
  /** the stream dictionary's /Filter and /DecodeParms entries, each on its line; '' when unfiltered */
  filterEntries: string;
}

export class XrefTable {
  /** the prefix's rows (entry 0 and every prefix object) laid out per `${w2}/${w3}` */
  private readonly laidOut = new Map<string, Buffer>();
  /** the widest fields 2 and 3 of the prefix's rows */
  private readonly prefixW2: number;
  private readonly prefixW3: number;
  /** rows pass through the PNG Up predictor */
  readonly predict: boolean;

  /**
   * `prefix`: entry per object number (entry 0 is added here); `rows`: how many numbers the prefix
   * spans; `minOffsetWidth`: width of the smallest offset a render's table can hold (the prefix's length).
   */
  constructor(
    private readonly prefix: ReadonlyMap<number, XrefEntry>,
    private readonly rows: number,
    minOffsetWidth: number,
  ) {
    let w2 = minOffsetWidth;
    let w3 = byteWidth(65535);
    for (const e of prefix.values()) {
      w2 = Math.max(w2, byteWidth(e[1]));
      w3 = Math.max(w3, byteWidth(e[2]));
    }
    this.prefixW2 = w2;
    this.prefixW3 = w3;
    const prefixRows = this.rowsFor(w2, w3);
    const row = 1 + w2 + w3;
    this.predict =
      deflateSync(predicted(prefixRows, row), { level: LEVEL }).length <
      deflateSync(prefixRows, { level: LEVEL }).length;
  }

  /**
   * The table of an output with `size` numbers: the prefix's rows, then `own` over them (the render's
   * objects), and the numbers of `freed` listed free (prefix objects the render no longer reaches).
   */
  encode(size: number, own: ReadonlyMap<number, XrefEntry>, freed: Iterable<number>): EncodedXref {
    let w2 = this.prefixW2;
    let w3 = this.prefixW3;
    for (const e of own.values()) {
      w2 = Math.max(w2, byteWidth(e[1]));
      w3 = Math.max(w3, byteWidth(e[2]));
    }
    const row = 1 + w2 + w3;
    const table = Buffer.alloc(size * row);
    const base = this.rowsFor(w2, w3);
    table.set(base.subarray(0, Math.min(base.length, table.length)));
    for (const n of freed) if (n < size) table.fill(0, n * row, (n + 1) * row);
    for (const [n, e] of own) writeRow(table, n * row, e, w2, w3);
    if (table.length < UNFILTERED_BELOW_BYTES) return { data: table, w2, w3, filterEntries: '' };
    const data = deflateSync(this.predict ? predicted(table, row) : table, { level: LEVEL });
    const parms = this.predict ? `/DecodeParms << /Predictor 12 /Columns ${row} >>\n` : '';
    return { data, w2, w3, filterEntries: `/Filter /FlateDecode\n${parms}` };
  }

  /** The prefix's rows at these widths (entries 0 and the prefix's; zeros elsewhere). */
  private rowsFor(w2: number, w3: number): Buffer {
    const key = `${w2}/${w3}`;
    let t = this.laidOut.get(key);
    if (!t) {
      const row = 1 + w2 + w3;
      t = Buffer.alloc(this.rows * row);
      writeRow(t, 0, [0, 0, 65535], w2, w3);
      for (const [n, e] of this.prefix) if (n < this.rows) writeRow(t, n * row, e, w2, w3);
      this.laidOut.set(key, t);
    }
    return t;
  }
}

function writeRow(table: Buffer, at: number, e: XrefEntry, w2: number, w3: number): void {
  table[at] = e[0];
  table.writeUIntBE(e[1], at + 1, w2);
  table.writeUIntBE(e[2], at + 1 + w2, w3);
}

/** The rows with the PNG Up predictor applied: each byte minus the one above it, a type byte per row. */
function predicted(table: Uint8Array, row: number): Buffer {
  const rows = table.length / row;
  const out = Buffer.allocUnsafe(rows * (row + 1));
  let o = 0;
  for (let r = 0, at = 0; r < rows; r++, at += row) {
    out[o++] = PNG_UP;
    if (r === 0) for (let i = 0; i < row; i++) out[o++] = table[i];
    else for (let i = 0; i < row; i++) out[o++] = (table[at + i] - table[at - row + i]) & 0xff;
  }
  return out;
}
