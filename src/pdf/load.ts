// Guarded PDF loading shared by the analyser and the filler: every failure becomes a
// PdfEngineError, never a raw pdf-lib exception. Internal to src/pdf/ (returns pdf-lib objects).
import { PDFDocument, ParseSpeeds, type PDFContext, type PDFDict } from '@cantoo/pdf-lib';
import { installDecryptedStrings } from './decrypted-strings.js';
import { decryptAesNatively } from './native-aes.js';
import { DEFAULT_LIMITS } from './limits.js';
import { ParseBudgetExceeded, withParseBudget } from './parse-budget.js';
import { parseNamesOnce } from './name-parsing.js';
import { asDict } from './pdf-objects.js';
import { PdfEngineError } from './types.js';

export interface LoadedPdf {
  doc: PDFDocument;
  context: PDFContext;
  catalog: PDFDict;
  /** The file had an /Encrypt dictionary (it was opened with the empty user password). */
  encrypted: boolean;
}

export interface LoadPdfOptions {
  /** Refuse inputs larger than this many bytes (default: DEFAULT_LIMITS.maxBytes). */
  maxBytes?: number;
  /** Give up parsing after this many milliseconds (default: DEFAULT_LIMITS.maxParseMs). */
  maxParseMs?: number;
  /** Passed to pdf-lib, for writers that append an incremental update. */
  forIncrementalUpdate?: boolean;
}

const HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** pdf-lib accepts a header anywhere; real viewers look in the first KiB only, so do we. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 1024) - HEADER.length;
  outer: for (let i = 0; i <= end; i++) {
    for (let j = 0; j < HEADER.length; j++) if (bytes[i + j] !== HEADER[j]) continue outer;
    return true;
  }
  return false;
}

function describe(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (/NEEDS PASSWORD|Password incorrect/i.test(msg)) return 'the PDF is encrypted with a non-empty user password';
  if (/encryption|crypt/i.test(msg)) return `the PDF uses an unsupported encryption scheme (${msg})`;
  return `the PDF could not be parsed (${msg.slice(0, 200)})`;
}

export async function loadPdf(bytes: Uint8Array, options: LoadPdfOptions = {}): Promise<LoadedPdf> {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new PdfEngineError('INVALID_PDF', 'the file is empty');
  }
  const maxBytes = options.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  if (bytes.length > maxBytes) {
    throw new PdfEngineError('PDF_LIMIT', `the PDF is ${bytes.length} bytes, more than the ${maxBytes} allowed`);
  }
  if (!hasPdfHeader(bytes)) {
    throw new PdfEngineError('INVALID_PDF', 'the file is not a PDF (no %PDF- header)');
  }
  const maxParseMs = options.maxParseMs ?? DEFAULT_LIMITS.maxParseMs;
  // decrypted strings stay their bytes: never read as escapes again, always written escaped
  installDecryptedStrings();
  // AES by OpenSSL, not pdf-lib's JavaScript
  decryptAesNatively();
  // names are decoded once (pdf-lib decoded them a second time)
  parseNamesOnce();
  let doc: PDFDocument;
  try {
    doc = await withParseBudget(bytes, maxParseMs, () =>
      PDFDocument.load(bytes, {
        // An empty password decrypts files that only restrict permissions (RC4, AES-128, AES-256).
        password: '',
        ignoreEncryption: true,
        updateMetadata: false,
        // Fastest = no setTimeout yield every 100 objects (that alone cost ~1 ms per yield).
        parseSpeed: ParseSpeeds.Fastest,
        throwOnInvalidObject: false,
        warnOnInvalidObjects: false,
        // getForm() would otherwise strip /XFA; callers decide what to do with it.
        preserveXFA: true,
        forIncrementalUpdate: options.forIncrementalUpdate ?? false,
      }),
    );
  } catch (err) {
    if (err instanceof ParseBudgetExceeded) {
      throw new PdfEngineError('PDF_LIMIT', `the PDF is too damaged or complex to parse (${err.message})`);
    }
    throw new PdfEngineError('INVALID_PDF', describe(err));
  }
  const context = doc.context;
  const catalog = asDict(context, context.trailerInfo.Root);
  if (!catalog) throw new PdfEngineError('INVALID_PDF', 'the PDF has no document catalog');
  const encrypted = context.isDecrypted || doc.isEncrypted;
  return { doc, context, catalog, encrypted };
}
