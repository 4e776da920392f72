// Writes a render as an incremental update (PDF 32000-1, 7.5.6), to follow the unchanged base file:
// only the objects the render added or changed, a cross-reference section listing just those,
// and a trailer whose /Prev points at the base's cross-reference section. Readers take each object
// from the newest section that lists it, so the last revision is the filled form.
import { deflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFInvalidObject,
  PDFName,
  PDFNull,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { refsOf } from './object-refs.js';

/**
 * Unfiltered streams at least this long are deflated on output (the flattened page content, big
 * list boxes); appearance streams of single values are ~100-400 bytes, where deflate saves little
 * and costs time (measured: 2.2 ms vs 4.8 ms per render when every stream was deflated).
 */
const DEFLATE_MIN_BYTES = 1024;
/**
 * zlib's fastest level for those streams (page content mostly, also list boxes and CMaps): their
 * operators and text compress almost as well as at the default 6
 * (flattened outputs measured 0.1-0.4% larger) for about half the deflate time (B107, 600 fields:
 * 4.3-4.6 -> 3.8-4.0 ms per fill+flatten).
 */
const DEFLATE_LEVEL = 1;

export interface BaseFile {
  bytes: Uint8Array;
  /** offset of the base's last cross-reference section (its `startxref` value) */
  startXref: number;
}

/** The `startxref` value at the end of a file, or undefined when there is none. */
export function findStartXref(bytes: Uint8Array): number | undefined {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
    'latin1',
    Math.max(0, bytes.length - 1024),
  );
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  return m ? Number(m[1]) : undefined;
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

/**
 * Serializes objects the way pdf-lib does (same tokens), without its per-object size pass and
 * array copies, and without writing /Length back into stream dictionaries (base objects stay as
 * parsed). Text accumulates in a string; binary parts (stream data) are pushed as they are.
 * `refText`, when given, writes each reference (the combiner renumbers objects this way).
 */
export class ObjectWriter {
  readonly parts: Uint8Array[] = [];
  private text = '';
  length = 0;
  /** when set, every dictionary and array written, and the number of every reference (prewrite) */
  seen?: { containers: (PDFDict | PDFArray)[]; refs: number[] };

  constructor(private readonly refText?: (ref: PDFRef) => string) {}

  str(s: string): void {
    this.text += s;
  }

  bytes(b: Uint8Array): void {
    this.flush();
    this.parts.push(b);
    this.length += b.length;
  }

  flush(): void {
    if (!this.text) return;
    const b = ascii(this.text);
    this.parts.push(b);
    this.length += b.length;
    this.text = '';
  }

  /** Bytes written so far (the offset of the next object). */
  get offset(): number {
    return this.length + this.text.length;
  }

  value(obj: PDFObject): void {
    if (obj instanceof PDFDict) this.dict(obj);
    else if (obj instanceof PDFArray) {
      this.seen?.containers.push(obj);
      this.str('[ ');
      for (let i = 0; i < obj.size(); i++) {
        this.value(obj.get(i));
        this.str(' ');
      }
      this.str(']');
    } else if (obj instanceof PDFStream) this.stream(obj, false);
    else if (obj instanceof PDFInvalidObject) this.bytes((obj as unknown as { data: Uint8Array }).data);
    else if (this.refText && obj instanceof PDFRef) this.str(this.refText(obj));
    else {
      if (this.seen && obj instanceof PDFRef) this.seen.refs.push(obj.objectNumber);
      this.str(obj.toString()); // names, numbers, strings, refs, booleans, null: cached text
    }
  }

  private dict(d: PDFDict, skip?: Set<PDFName>, extra?: string): void {
    this.seen?.containers.push(d);
    this.str('<<\n');
    for (const [key, value] of (d as unknown as { dict: Map<PDFName, PDFObject> }).dict) {
      if (skip?.has(key)) {
        // not written (a stream's /Length is written from its data), but what it refers to is reached
        if (this.seen) for (const n of refsOf(value)) this.seen.refs.push(n);
        continue;
      }
      this.str(key.toString());
      this.str(' ');
      this.value(value);
      this.str('\n');
    }
    if (extra) this.str(extra);
    this.str('>>');
  }

  /** A stream with /Length from its data; new unfiltered ones above the threshold are deflated. */
  stream(stream: PDFStream, mayDeflate: boolean, minBytes = DEFLATE_MIN_BYTES, level = DEFLATE_LEVEL): void {
    let contents = stream.getContents();
    const skip = new Set([LENGTH]);
    let extra = '';
    if (mayDeflate && stream instanceof PDFRawStream && !stream.dict.has(FILTER) && contents.length >= minBytes) {
      const deflated = deflateSync(contents, { level });
      // kept as it is when the filter entry would cost more than deflate saves
      if (deflated.length + FILTER_ENTRY.length < contents.length) {
        contents = deflated;
        skip.add(FILTER).add(DECODE_PARMS);
        extra = FILTER_ENTRY;
      }
    }
    this.dict(stream.dict, skip, `${extra}/Length ${contents.length}\n`);
    this.str('\nstream\n');
    this.bytes(contents);
    this.str('\nendstream');
  }
}

const LENGTH = PDFName.of('Length');
const FILTER = PDFName.of('Filter');
const DECODE_PARMS = PDFName.of('DecodeParms');
const FILTER_ENTRY = '/Filter /FlateDecode\n';

/**
 * The update that follows the base: the objects `refs` (looked up in ctx) + xref + trailer, with
 * offsets counted from the start of the base (the file is base + update). `baseMax` tells new
 * objects (number above it) from changed base objects; only new streams are ever recompressed.
 */
export function writeIncrement(ctx: PDFContext, base: BaseFile, refs: PDFRef[], baseMax: number): Uint8Array {
  const w = new ObjectWriter();
  w.length = base.bytes.length; // the base itself is not copied: callers keep it and write it first
  // A base ending without EOL would glue our first object to %%EOF.
  const last = base.bytes[base.bytes.length - 1];
  if (last !== 0x0a && last !== 0x0d) w.str('\n');

  const entries: { num: number; gen: number; offset: number }[] = [];
  for (const ref of refs) {
    const obj = ctx.lookup(ref) ?? PDFNull;
    entries.push({ num: ref.objectNumber, gen: ref.generationNumber, offset: w.offset });
    w.str(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
    if (obj instanceof PDFStream) w.stream(obj, ref.objectNumber > baseMax);
    else w.value(obj);
    w.str('\nendobj\n');
  }

  const xrefOffset = w.offset;
  w.str('xref\n');
  for (let i = 0; i < entries.length; ) {
    let j = i + 1;
    while (j < entries.length && entries[j].num === entries[j - 1].num + 1) j++;
    w.str(`${entries[i].num} ${j - i}\n`);
    for (let k = i; k < j; k++) {
      w.str(`${String(entries[k].offset).padStart(10, '0')} ${String(entries[k].gen).padStart(5, '0')} n\r\n`);
    }
    i = j;
  }
  const info = ctx.trailerInfo;
  const trailer: [string, PDFObject | undefined][] = [
    ['/Size', PDFNumber.of(Math.max(ctx.largestObjectNumber, baseMax) + 1)],
    ['/Root', info.Root],
    ['/Info', info.Info],
    ['/ID', info.ID],
    ['/Prev', PDFNumber.of(base.startXref)],
  ];
  w.str('trailer\n<<\n');
  for (const [key, value] of trailer) {
    if (!value) continue;
    w.str(`${key} `);
    w.value(value);
    w.str('\n');
  }
  w.str(`>>\nstartxref\n${xrefOffset}\n%%EOF\n`);
  w.flush();
  const out = Buffer.concat(w.parts);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
