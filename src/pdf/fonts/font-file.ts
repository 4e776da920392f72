// A bundled TrueType file read as it is used: every table at once but the glyph outlines, and each
// glyph's outline when fontkit first makes that glyph. The CJK fallbacks are 6 and 10 MB, 92 % of it
// outlines, and a render draws a few dozen glyphs: reading the whole file faulted in every page of it
// (~25 ms of the offline CLI's 450 ms Korean render on this VM) and a render worker kept it all resident.
// Fonts this does not fit (no glyf/loca, colour or bitmap glyphs, CFF, variations) are read whole.
//
// No descriptor is held between reads (font libraries are also made per call, by edits and one-off
// preparations): an outline is read by opening the file again, which must still be the file first read.
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { endianness } from 'node:os';
import type { KitFont } from './font-types.js';

/** A font file's bytes; `attach` makes a font parsed from them load each glyph's outline before fontkit reads it. */
export interface FontFile {
  /** The file's bytes; with lazy outlines, those of glyphs not yet made are zeros. */
  readonly bytes: Uint8Array;
  attach(font: KitFont): KitFont;
}

/** Tables whose glyphs fontkit reads without going through `_getBaseGlyph`, or through other tables. */
const WHOLE_FILE_TABLES = ['sbix', 'COLR', 'CBLC', 'EBLC', 'gvar', 'CFF ', 'CFF2'];

/** The fontkit internals the lazy outlines rely on (checked in attach; tested against fontkit's own reads). */
interface FontkitTtf {
  _getBaseGlyph?: (id: number, chars?: number[]) => unknown;
  _tables?: Record<string, unknown>;
}

export function openFontFile(path: string): FontFile {
  const fd = openSync(path, 'r');
  try {
    const first = fstatSync(fd);
    const bytes = new Uint8Array(first.size); // zeroed pages are mapped on first touch: only what is read costs
    const read = (offset: number, length: number) => readAt(fd, bytes, offset, length);
    read(0, Math.min(12, first.size));
    const tables = tableDirectory(bytes, read);
    const glyf = tables?.get('glyf');
    const locaTable = tables?.get('loca');
    const head = tables?.get('head');
    if (!tables || !glyf || !locaTable || !head || WHOLE_FILE_TABLES.some((t) => tables.has(t))) {
      read(0, first.size);
      return { bytes, attach: (font) => withItalicAngle(font, bytes, tables) };
    }
    for (const [tag, t] of tables) if (tag !== 'glyf') read(t.offset, t.length);
    const long = new DataView(bytes.buffer).getInt16(head.offset + 50) === 1; // head.indexToLocFormat
    const offsets = locaOffsets(bytes, locaTable, long);
    const loaded = new Uint8Array(Math.max(0, offsets.length - 1));

    const load = (id: number): void => {
      if (!(id >= 0 && id < loaded.length) || loaded[id]) return;
      const start = Math.min(offsets[id], glyf.length);
      const end = Math.min(offsets[id + 1], glyf.length);
      if (end > start) readAgain(path, first, bytes, glyf.offset + start, end - start);
      loaded[id] = 1;
    };

    return {
      bytes,
      attach(font) {
        withItalicAngle(font, bytes, tables);
        const kit = font as unknown as FontkitTtf;
        const base = kit._getBaseGlyph;
        if (typeof base !== 'function' || !kit._tables) {
          // not the fontkit this was written for: the outlines are read now, whole
          readAgain(path, first, bytes, glyf.offset, glyf.length);
          return font;
        }
        // fontkit's own decode of loca gives the same numbers (tested), ~10-20 ms in code not yet optimised
        kit._tables.loca ??= { version: long ? 1 : 0, offsets, _processed: true };
        // fontkit makes every glyph it reads from glyf here, a composite glyph's parts included (tested)
        kit._getBaseGlyph = function (this: unknown, id, chars) {
          load(id);
          return base.call(this, id, chars);
        };
        return font;
      },
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * The font's italic angle read from the post table's header (a 16.16 fixed number at byte 4), as an own
 * property of this font. fontkit's getter decodes the whole table for it, the glyph names of a post
 * version 2 included: ~23 ms of a one-shot render that embeds a fallback font, for one number.
 */
function withItalicAngle(
  font: KitFont,
  bytes: Uint8Array,
  tables: Map<string, { offset: number; length: number }> | undefined,
): KitFont {
  const post = tables?.get('post');
  if (post && post.length >= 8) {
    const italicAngle = new DataView(bytes.buffer, bytes.byteOffset).getInt32(post.offset + 4) / 65536;
    Object.defineProperty(font, 'italicAngle', { value: italicAngle, enumerable: true });
  }
  return font;
}

/** The sfnt table directory (tag -> place), or undefined when the file is no TrueType font. */
function tableDirectory(
  bytes: Uint8Array,
  read: (offset: number, length: number) => void,
): Map<string, { offset: number; length: number }> | undefined {
  if (bytes.length < 12) return undefined;
  const view = new DataView(bytes.buffer);
  const version = view.getUint32(0);
  if (version !== 0x00010000 && version !== 0x74727565 /* 'true' */) return undefined;
  const count = view.getUint16(4);
  if (12 + count * 16 > bytes.length) return undefined;
  read(12, count * 16);
  const tables = new Map<string, { offset: number; length: number }>();
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const tag = String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
    const offset = view.getUint32(at + 8);
    const length = view.getUint32(at + 12);
    if (offset + length > bytes.length) return undefined;
    tables.set(tag, { offset, length });
  }
  return tables;
}

/**
 * loca as fontkit decodes it: every entry of the table, as byte offsets into glyf. The long form (the CJK
 * fonts' 25,000-65,000 entries) is byte-swapped natively: an element loop is ~10 ms in code not yet optimised.
 */
function locaOffsets(bytes: Uint8Array, loca: { offset: number; length: number }, long: boolean): ArrayLike<number> {
  const size = long ? 4 : 2;
  const count = Math.floor(loca.length / size);
  const table = Buffer.allocUnsafeSlow(count * size); // a buffer of its own: aligned for the Uint32Array view
  table.set(bytes.subarray(loca.offset, loca.offset + count * size));
  if (long) {
    if (endianness() === 'LE') table.swap32(); // the file is big-endian; a Uint32Array reads the machine's order
    return new Uint32Array(table.buffer, table.byteOffset, count);
  }
  const offsets = new Uint32Array(count);
  for (let i = 0; i < count; i++) offsets[i] = table.readUInt16BE(i * 2) * 2;
  return offsets;
}

/**
 * Reads `length` bytes at `offset` of the file at `path` into `into`, refusing a file that is not the one
 * first read (`first`): a package upgrade under a running process must not mix two files' glyphs.
 */
function readAgain(path: string, first: Stats, into: Uint8Array, offset: number, length: number): void {
  const fd = openSync(path, 'r');
  try {
    const now = fstatSync(fd);
    if (now.ino !== first.ino || now.dev !== first.dev || now.size !== first.size || now.mtimeMs !== first.mtimeMs)
      throw new Error(`the font file ${path} changed since it was first read; restart the process to use the new one`);
    readAt(fd, into, offset, length);
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, into: Uint8Array, offset: number, length: number): void {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, offset + done, length - done, offset + done);
    if (n === 0) throw new Error('a font file is shorter than its size');
    done += n;
  }
}
