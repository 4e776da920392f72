// Names are decoded once. pdf-lib's parser decodes a name token's #xx escapes and hands the result
// to PDFName.of(), which decodes #XX in it again: `/#23D8#23A3` (the text "#D8#A3") became the two
// bytes D8 A3, so the state was listed under another name and written back as another name. The
// parser's own tokenizer is kept; only the token it read is turned into a name a second way.
import { type PDFName, PDFObjectParser } from '@cantoo/pdf-lib';
import { nameOfBytes } from './pdf-objects.js';

interface ParserInternals {
  bytes: { offset(): number; slice(start: number, end: number): Uint8Array };
  parseName(): PDFName;
}

const FIXED = Symbol.for('formcast.parseNameOnce');

/** Every #xx escape of a name token (its bytes after '/') decoded, once. */
function decodeToken(token: Uint8Array): string {
  return Buffer.from(token.buffer, token.byteOffset, token.length)
    .toString('latin1')
    .replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * Makes pdf-lib's object parser decode names once. A fix of the library's code, not state: applied
 * to its prototype the first time a PDF is loaded, idempotent (marked on the prototype itself).
 */
export function parseNamesOnce(): void {
  const proto = PDFObjectParser.prototype as unknown as ParserInternals & { [FIXED]?: true };
  if (proto[FIXED]) return;
  const tokenize = proto.parseName;
  proto.parseName = function (this: ParserInternals): PDFName {
    const start = this.bytes.offset();
    tokenize.call(this); // reads the token (and would decode it twice)
    return nameOfBytes(decodeToken(this.bytes.slice(start + 1, this.bytes.offset())));
  };
  Object.defineProperty(proto, FIXED, { value: true });
}
