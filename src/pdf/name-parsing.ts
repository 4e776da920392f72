// Names are decoded once. pdf-lib's parser decodes a name token's #xx escapes and hands the result
// to PDFName.of(), which decodes #XX in it again: `/#23D8#23A3` (the text "#D8#A3") became the two
// bytes D8 A3, so the state was listed under another name and written back as another name. The
// token is read here (pdf-lib's rule: up to whitespace or a delimiter) and turned into a name once.
// Reading it ourselves also keeps names cheap: every dictionary key is one, and the parser's own
// reading plus a second decoding through a Buffer was a tenth of an offline render's CPU.
import { type PDFName, PDFObjectParser } from '@cantoo/pdf-lib';
import { nameOfBytes } from './pdf-objects.js';

interface ParserInternals {
  bytes: { peek(): number; next(): number; done(): boolean; assertNext(byte: number): number };
  parseName(): PDFName;
}

const FIXED = Symbol.for('formcast.parseNameOnce');
const SLASH = 0x2f;
const HASH = 0x23;

/** What ends a name token: PDF whitespace and delimiters (PDF 32000-1, 7.2.2), as pdf-lib's tables. */
const ENDS_NAME = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20, ...Buffer.from('()<>[]{}/%', 'latin1')]) ENDS_NAME[c] = 1;

/** Every #xx escape of a name token (its bytes after '/', one character per byte) decoded, once. */
function decodeEscapes(token: string): string {
  return token.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * Makes pdf-lib's object parser decode names once. A fix of the library's code, not state: applied
 * to its prototype the first time a PDF is loaded, idempotent (marked on the prototype itself).
 */
export function parseNamesOnce(): void {
  const proto = PDFObjectParser.prototype as unknown as ParserInternals & { [FIXED]?: true };
  if (proto[FIXED]) return;
  proto.parseName = function (this: ParserInternals): PDFName {
    const bytes = this.bytes;
    bytes.assertNext(SLASH);
    let token = '';
    let escaped = false;
    while (!bytes.done()) {
      const byte = bytes.peek();
      if (ENDS_NAME[byte]) break;
      if (byte === HASH) escaped = true;
      token += String.fromCharCode(byte);
      bytes.next();
    }
    return nameOfBytes(escaped ? decodeEscapes(token) : token);
  };
  Object.defineProperty(proto, FIXED, { value: true });
}
