// Writes a render as an incremental update (PDF 32000-1, 7.5.6): the base file's bytes unchanged,
// then only the objects the render added or changed, a cross-reference section listing just those,
// and a trailer whose /Prev points at the base's cross-reference section. Readers take each object
// from the newest section that lists it, so the last revision is the filled form.
import { deflateSync } from 'node:zlib';
import { PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';

/**
 * Unfiltered streams at least this long are deflated on output (the flattened page content, big
 * list boxes); appearance streams of single values are ~100-400 bytes, where deflate saves little
 * and costs time (measured: 2.2 ms vs 4.8 ms per render when every stream was deflated).
 */
export const DEFLATE_MIN_BYTES = 1024;

export interface BaseFile {
  bytes: Uint8Array;
  /** offset of the base's last cross-reference section (its `startxref` value) */
  startXref: number;
}

/** The `startxref` value at the end of a file, or undefined when there is none. */
export function findStartXref(bytes: Uint8Array): number | undefined {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', Math.max(0, bytes.length - 1024));
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  return m ? Number(m[1]) : undefined;
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

function serialize(obj: PDFObject): Uint8Array {
  const out = new Uint8Array(obj.sizeInBytes());
  obj.copyBytesInto(out, 0);
  return out;
}

/** A new unfiltered stream above the threshold, deflated (a copy: the render's object is left alone). */
function maybeDeflated(ctx: PDFContext, obj: PDFObject, isNew: boolean): PDFObject {
  if (!isNew || !(obj instanceof PDFRawStream) || obj.dict.has(PDFName.of('Filter'))) return obj;
  const contents = obj.getContents();
  if (contents.length < DEFLATE_MIN_BYTES) return obj;
  const dict = PDFDict.fromMapWithContext(obj.dict.asMap(), ctx);
  dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
  dict.delete(PDFName.of('DecodeParms'));
  return PDFRawStream.of(dict, deflateSync(contents, { level: 6 }));
}

/**
 * base + the objects `refs` (looked up in ctx) + xref + trailer. `baseMax` tells new objects (number
 * above it) from changed base objects; only new streams are ever recompressed.
 */
export function writeIncrement(ctx: PDFContext, base: BaseFile, refs: PDFRef[], baseMax: number): Uint8Array {
  const chunks: Uint8Array[] = [base.bytes];
  let offset = base.bytes.length;
  const push = (b: Uint8Array) => {
    chunks.push(b);
    offset += b.length;
  };
  // A base ending without EOL would glue our first object to %%EOF.
  const last = base.bytes[base.bytes.length - 1];
  if (last !== 0x0a && last !== 0x0d) push(ascii('\n'));

  const entries: { num: number; gen: number; offset: number }[] = [];
  for (const ref of refs) {
    const found = ctx.lookup(ref);
    const obj: PDFObject = found === undefined ? ctx.obj(null) : maybeDeflated(ctx, found, ref.objectNumber > baseMax);
    entries.push({ num: ref.objectNumber, gen: ref.generationNumber, offset });
    push(ascii(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
    push(serialize(obj));
    push(ascii('\nendobj\n'));
  }

  const xrefOffset = offset;
  const lines: string[] = ['xref'];
  for (let i = 0; i < entries.length; ) {
    let j = i + 1;
    while (j < entries.length && entries[j].num === entries[j - 1].num + 1) j++;
    lines.push(`${entries[i].num} ${j - i}`);
    for (let k = i; k < j; k++) {
      lines.push(`${String(entries[k].offset).padStart(10, '0')} ${String(entries[k].gen).padStart(5, '0')} n\r`);
    }
    i = j;
  }
  push(ascii(`${lines.join('\n')}\ntrailer\n`));
  const info = ctx.trailerInfo;
  const trailer = ctx.obj({});
  trailer.set(PDFName.of('Size'), PDFNumber.of(Math.max(ctx.largestObjectNumber, baseMax) + 1));
  if (info.Root) trailer.set(PDFName.of('Root'), info.Root);
  if (info.Info) trailer.set(PDFName.of('Info'), info.Info);
  if (info.ID) trailer.set(PDFName.of('ID'), info.ID);
  trailer.set(PDFName.of('Prev'), PDFNumber.of(base.startXref));
  push(serialize(trailer));
  push(ascii(`\nstartxref\n${xrefOffset}\n%%EOF\n`));
  const out = Buffer.concat(chunks);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
