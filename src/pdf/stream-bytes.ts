// A stream's decoded bytes with a ceiling on what decoding may produce (issue 27: a 4 KB stream,
// Flate over Flate, inflates to 2 GiB). pdf-lib's decoders (pdf.js's) inflate a whole deflate block
// per step, and one block may hold gigabytes, so no read through them can be cut in time. Flate is
// therefore inflated by node's zlib with `maxOutputLength` (it inflates chunk by chunk, 4 MB at most, and
// stops past the ceiling), and data zlib refuses (a bad checksum, a cut-off end) by fflate's streaming inflater,
// fed a kilobyte at a time (a kilobyte of deflate makes at most ~1 MB) and stopped past the ceiling,
// keeping what it inflated as readers do. The other filters (LZW, RunLength, ASCII85, ASCIIHex,
// predictors) produce a bounded block per step and run through pdf-lib, read block by block.
import { inflateRawSync, inflateSync } from 'node:zlib';
import { Inflate, Unzlib } from 'fflate';
import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFRawStream,
  type PDFObject,
  type PDFStream,
  decodePDFRawStream,
} from '@cantoo/pdf-lib';

/** Decoding `stream` would produce more than `maxBytes`: a decompression bomb, or far beyond any real form. */
export class StreamTooLarge extends Error {
  constructor(
    readonly maxBytes: number,
    /** the first `maxBytes` of the last filter's output, when it was the one past the ceiling */
    readonly head?: Uint8Array,
  ) {
    super(`a stream decodes to more than ${Math.round(maxBytes / (1024 * 1024))} MB`);
    this.name = 'StreamTooLarge';
  }
}

/** Input fed to the inflater per step: its output per step stays near a megabyte (deflate's ratio is ~1032:1). */
const FEED = 1024;

/**
 * The stream's decoded bytes; throws StreamTooLarge past `maxBytes` (or, with `cut`, answers the first
 * `maxBytes`), and another Error when it cannot be decoded.
 */
export function decodedBytes(stream: PDFStream, maxBytes: number, opts: { cut?: boolean } = {}): Uint8Array {
  try {
    return decode(stream, maxBytes, opts.cut ?? false);
  } catch (err) {
    if (err instanceof StreamTooLarge && opts.cut && err.head) return err.head;
    throw err;
  }
}

function decode(stream: PDFStream, maxBytes: number, cut: boolean): Uint8Array {
  if (!(stream instanceof PDFRawStream)) {
    const bytes = stream.getContents(); // built in memory by pdf-lib: already decoded
    if (bytes.length > maxBytes) throw new StreamTooLarge(maxBytes, bytes.subarray(0, maxBytes));
    return bytes;
  }
  let bytes = stream.contents;
  if (stream.transform) {
    // decryption first; its output is the size of its input
    bytes = decodePDFRawStream(PDFRawStream.of(emptyDict(stream), bytes, stream.transform)).decode();
  }
  const filters = listOf(stream.dict.lookup(PDFName.of('Filter')));
  const params = listOf(stream.dict.lookup(PDFName.of('DecodeParms')));
  filters.forEach((filter, i) => {
    if (!(filter instanceof PDFName)) throw new Error('a stream filter is not a name');
    const parms = params[i] instanceof PDFDict ? (params[i] as PDFDict) : undefined;
    // a crypt filter names the decryption, done above (pdf-lib does not know the name)
    if (filter === PDFName.of('Crypt')) return;
    const flate = filter === PDFName.of('FlateDecode') || filter === PDFName.of('Fl');
    try {
      const inflated = flate ? inflateBounded(bytes, maxBytes, cut && i === filters.length - 1) : undefined;
      // a predictor (rows of PNG or TIFF differences) only shrinks what inflation made: pdf-lib applies it
      // once the inflation is known to fit
      bytes = inflated && !hasPredictor(parms) ? inflated : decodeOneFilter(stream, bytes, filter, parms, maxBytes);
    } catch (err) {
      // the head of a filter before the last is no part of the decoded stream
      if (err instanceof StreamTooLarge && i < filters.length - 1) throw new StreamTooLarge(maxBytes);
      throw err;
    }
  });
  if (bytes.length > maxBytes) throw new StreamTooLarge(maxBytes, bytes.subarray(0, maxBytes));
  return bytes;
}

function listOf(obj: PDFObject | undefined): (PDFObject | undefined)[] {
  if (obj instanceof PDFArray) return obj.asArray().map((_, i) => obj.lookup(i));
  return obj === undefined ? [] : [obj];
}

function emptyDict(stream: PDFStream): PDFDict {
  return stream.dict.context.obj({});
}

function hasPredictor(parms: PDFDict | undefined): boolean {
  const p = parms?.lookup(PDFName.of('Predictor'));
  return p !== undefined && Number(p.toString()) > 1;
}

/**
 * zlib data (or, from careless producers, raw deflate) inflated until its end or past `maxBytes`
 * (StreamTooLarge, carrying the first `maxBytes` when `wantHead`).
 */
function inflateBounded(input: Uint8Array, maxBytes: number, wantHead: boolean): Uint8Array {
  const zlibHeader = input.length >= 2 && (input[0] & 0x0f) === 8 && ((input[0] << 8) | input[1]) % 31 === 0;
  try {
    const out = (zlibHeader ? inflateSync : inflateRawSync)(input, {
      maxOutputLength: maxBytes,
      chunkSize: outputChunk(input.length, maxBytes),
    });
    // a chunk mostly unused is not kept alive by a small result (its untouched pages cost nothing until then)
    return out.buffer.byteLength > 2 * out.length + OUTPUT_CHUNK_MIN ? Buffer.from(out) : out;
  } catch (err) {
    // past the ceiling: only fflate keeps a head to give
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' && !wantHead) throw new StreamTooLarge(maxBytes);
  }
  return inflateLeniently(input, maxBytes, zlibHeader);
}

/** zlib's default output chunk, and the least we ask for. */
const OUTPUT_CHUNK_MIN = 16 * 1024;
/** Page content deflates 3-6x: a chunk this many times the input holds most streams' output whole. */
const EXPECTED_RATIO = 8;
/**
 * Past this, output comes in chunks of this size (joined). node checks the ceiling after each chunk, so a
 * bomb may write one chunk past it before it is stopped: 4 MB past a 64 MB ceiling (16 KB before).
 */
const OUTPUT_CHUNK_MAX = 4 * 1024 * 1024;

/**
 * The size of zlib's output chunks for `inputBytes` of deflate: node inflates into chunks of this size and
 * joins them (a 2.5 MB page stream was 160 chunks of 16 KB and a copy of all of them); one chunk as large
 * as the output is returned as it is. Its pages past the output are never touched.
 */
function outputChunk(inputBytes: number, maxBytes: number): number {
  return Math.max(OUTPUT_CHUNK_MIN, Math.min(maxBytes + 1, inputBytes * EXPECTED_RATIO, OUTPUT_CHUNK_MAX));
}

/** fflate's inflater, a kilobyte of input at a time: stops past `maxBytes`, keeps what damaged data gave. */
function inflateLeniently(input: Uint8Array, maxBytes: number, zlibHeader: boolean): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const take = (chunk: Uint8Array) => {
    total += chunk.length;
    chunks.push(chunk);
    if (total > maxBytes) throw new StreamTooLarge(maxBytes, Buffer.concat(chunks).subarray(0, maxBytes));
  };
  const inflater = zlibHeader ? new Unzlib(take) : new Inflate(take);
  try {
    for (let at = 0; at < input.length; at += FEED) inflater.push(input.subarray(at, at + FEED));
    inflater.push(new Uint8Array(0), true);
  } catch (err) {
    if (err instanceof StreamTooLarge) throw err;
    // damaged or cut short: keep what was inflated, as readers do, unless nothing was
    if (total === 0) throw err;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** One filter through pdf-lib, read a block at a time; each block of these filters is small. */
function decodeOneFilter(
  stream: PDFStream,
  input: Uint8Array,
  filter: PDFName,
  parms: PDFDict | undefined,
  maxBytes: number,
): Uint8Array {
  const dict = emptyDict(stream);
  dict.set(PDFName.of('Filter'), filter);
  if (parms) dict.set(PDFName.of('DecodeParms'), parms);
  const decoder = decodePDFRawStream(PDFRawStream.of(dict, input)) as unknown as BlockReader;
  if (typeof decoder.readBlock !== 'function') return decoder.getBytes(); // no filter to apply: a plain Stream
  while (!decoder.eof) {
    decoder.readBlock();
    if (decoder.bufferLength > maxBytes) throw new StreamTooLarge(maxBytes, decoder.buffer.subarray(0, maxBytes));
  }
  return decoder.buffer.subarray(0, decoder.bufferLength);
}

/** What pdf-lib's DecodeStream (a port of pdf.js's) exposes at run time. */
interface BlockReader {
  eof: boolean;
  buffer: Uint8Array;
  bufferLength: number;
  readBlock(): void;
  getBytes(): Uint8Array;
}
