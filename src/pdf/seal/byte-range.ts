// The signature's byte range (ISO 32000-2 12.8.1), done in place: the placeholder revision holds
// `/ByteRange [ 0 /********** /********** /********** ]` and `/Contents <00…>`; both are found in that
// revision alone (never a scan of the whole file), the range's numbers written over the placeholder at
// the same length, and the CMS later written over the zeros as hex. Nothing else of the file moves.
import { createHash } from 'node:crypto';
import { PdfEngineError } from '../types.js';

/** as the incremental writer serialises the array (spaces inside the brackets) */
const PLACEHOLDER = '[ 0 /********** /********** /********** ]';

export interface SignatureSlotBytes {
  /** the whole file, the revision with the empty signature last; written in place */
  bytes: Uint8Array;
  /** offset and length of the two signed parts: before and after `/Contents`'s hex string */
  byteRange: [number, number, number, number];
}

/** Fills the byte range of the revision starting at `from` (the placeholder's). */
export function fillByteRange(bytes: Uint8Array, from: number): SignatureSlotBytes {
  const region = Buffer.from(bytes.buffer, bytes.byteOffset + from, bytes.byteLength - from);
  return { bytes, byteRange: placeByteRange(region, from, bytes.byteLength) };
}

/**
 * Fills the byte range in `region`, the part of a `fileLength`-byte file that starts at `regionOffset`
 * and holds the signature dictionary up to its `/Contents` (the end of a file being written, say), and
 * answers the range in the file's offsets.
 */
export function placeByteRange(
  region: Buffer,
  regionOffset: number,
  fileLength: number,
): [number, number, number, number] {
  const tail = region.toString('latin1');
  const at = tail.indexOf(PLACEHOLDER);
  const open = tail.indexOf('/Contents <', at) + '/Contents '.length;
  const close = tail.indexOf('>', open);
  if (at < 0 || open < '/Contents '.length || close < 0)
    throw new PdfEngineError('RENDER_FAILED', 'the signature placeholder was not written as expected');
  const start = regionOffset + open;
  const end = regionOffset + close + 1;
  const byteRange: [number, number, number, number] = [0, start, end, fileLength - end];
  const numbers = `[${byteRange.join(' ')}]`;
  if (numbers.length > PLACEHOLDER.length)
    throw new PdfEngineError('RENDER_FAILED', 'the file is too large for a signature byte range');
  region.write(numbers.padEnd(PLACEHOLDER.length, ' '), at, 'latin1');
  return byteRange;
}

/** The CMS as written into /Contents: hex, checked against the room the byte range leaves for it. */
export function contentsHex(byteRange: readonly number[], cms: Uint8Array): string {
  const room = (byteRange[2] - byteRange[1] - 2) / 2;
  if (cms.byteLength > room)
    throw new PdfEngineError(
      'RENDER_FAILED',
      `the signature (${cms.byteLength} bytes) does not fit the ${room} bytes reserved for it`,
    );
  return Buffer.from(cms).toString('hex');
}

/** SHA-256 of the signed parts, hashed where they lie. */
export function byteRangeDigest(slot: SignatureSlotBytes): Buffer {
  const [a, b, c, d] = slot.byteRange;
  const { bytes } = slot;
  return createHash('sha256')
    .update(bytes.subarray(a, a + b))
    .update(bytes.subarray(c, c + d))
    .digest();
}

/** Writes the CMS, as hex, over `/Contents`'s zeros (the rest stays zero padding). */
export function embedSignature(slot: SignatureSlotBytes, cms: Uint8Array): Uint8Array {
  const hex = contentsHex(slot.byteRange, cms);
  Buffer.from(slot.bytes.buffer, slot.bytes.byteOffset, slot.bytes.byteLength).write(
    hex,
    slot.byteRange[1] + 1,
    'latin1',
  );
  return slot.bytes;
}
