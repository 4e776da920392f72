// Literal strings of encrypted files, kept as the bytes they decrypt to. pdf-lib keeps a literal
// string as its escaped source text (PDFString's value is what stood between the parentheses) and
// decodes the escapes when it reads the bytes. Its parser decrypts a literal string of an encrypted
// object to raw bytes but stores them as that escaped text: a decrypted backslash is then read as an
// escape again ("Sec\.A" reads "Sec.A", UTF-16 text whose bytes hold 0x5C loses bytes), and written
// out as it is, a decrypted string ending in "\" or holding an unbalanced ")" swallows the objects
// after it. Each decrypted string is escaped here once, as it is parsed, so it means exactly its
// bytes wherever it is read or written. The patch and its flag are process-wide by nature: they fix
// a library's method.
import { PDFObjectParser, PDFString, type PDFRef } from '@cantoo/pdf-lib';

type ParseString = (this: PDFObjectParser, ref?: PDFRef) => PDFString;
const parserProto = PDFObjectParser.prototype as unknown as { parseString: ParseString };
let installed = false;

/** The text of a literal string whose bytes are `raw` (one character per byte): \ ( ) CR LF escaped. */
function escapeLiteral(raw: string): string {
  return raw.replace(/[\\()\r\n]/g, (c) => (c === '\r' ? '\\r' : c === '\n' ? '\\n' : `\\${c}`));
}

/** Makes pdf-lib's parser keep decrypted literal strings as their bytes (idempotent). */
export function installDecryptedStrings(): void {
  if (installed) return;
  installed = true;
  const original = parserProto.parseString;
  parserProto.parseString = function parseString(this: PDFObjectParser, ref?: PDFRef): PDFString {
    const parsed = original.call(this, ref);
    // pdf-lib decrypts exactly when the parser has a cipher factory and the object's reference
    const decrypted = ref !== undefined && (this as unknown as { cryptoFactory?: unknown }).cryptoFactory;
    return decrypted ? PDFString.of(escapeLiteral(parsed.asString())) : parsed;
  };
}
