// Small, total helpers over pdf-lib's object model (owned by the analyser; reuse welcome). They
// return undefined instead of throwing on the wrong object type, because real forms put indirect
// refs, nulls and junk where the spec says otherwise. Internal to src/pdf/.
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  decodePDFRawStream,
  pdfDocEncodingDecode,
  utf16Decode,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';

const utf8 = new TextDecoder('utf-8', { fatal: true });

// PDFName.of() runs a regex on every call; keys are a small fixed set, so memoise them.
const keyCache = new Map<string, PDFName>();
/** The interned PDFName for an ASCII key such as 'Kids' (compare with ===). */
export function pdfName(key: string): PDFName {
  let name = keyCache.get(key);
  if (!name) keyCache.set(key, (name = PDFName.of(key)));
  return name;
}

export const hasKey = (dict: PDFDict, key: string): boolean => dict.has(pdfName(key));

/** Follows indirect references (a chain of refs is followed at most a few steps). */
export function resolve(ctx: PDFContext, obj: PDFObject | undefined): PDFObject | undefined {
  let cur = obj;
  for (let i = 0; i < 8 && cur instanceof PDFRef; i++) cur = ctx.lookup(cur);
  return cur instanceof PDFRef ? undefined : cur;
}

/** Alias kept for code written against the interim version of this module. */
export const deref = resolve;

export function get(ctx: PDFContext, dict: PDFDict, key: string): PDFObject | undefined {
  return resolve(ctx, dict.get(pdfName(key)));
}

export function asDict(ctx: PDFContext, obj: PDFObject | undefined): PDFDict | undefined {
  const v = resolve(ctx, obj);
  return v instanceof PDFDict ? v : undefined;
}

export function getDict(ctx: PDFContext, dict: PDFDict, key: string): PDFDict | undefined {
  return asDict(ctx, dict.get(pdfName(key)));
}

export function getArray(ctx: PDFContext, dict: PDFDict, key: string): PDFArray | undefined {
  const v = get(ctx, dict, key);
  return v instanceof PDFArray ? v : undefined;
}

export function getNumber(ctx: PDFContext, dict: PDFDict, key: string): number | undefined {
  const v = get(ctx, dict, key);
  return v instanceof PDFNumber && Number.isFinite(v.asNumber()) ? v.asNumber() : undefined;
}

export function getName(ctx: PDFContext, dict: PDFDict, key: string): string | undefined {
  const v = get(ctx, dict, key);
  return v instanceof PDFName ? nameText(v) : undefined;
}

/** The dictionary's keys as decoded text (e.g. the appearance state names of /AP /N). */
export function keyNames(dict: PDFDict): string[] {
  return dict.keys().map(nameText);
}

/**
 * Names are raw bytes: UTF-8 when valid (what most producers write), else PDFDocEncoding.
 * To find the PDFName for a decoded state, compare nameText(key) over the dictionary's keys
 * rather than calling PDFName.of(text), which would re-encode non-ASCII text differently.
 */
export function nameText(name: PDFName): string {
  let text = nameCache.get(name);
  if (text !== undefined) return text;
  const bytes = name.asBytes();
  try {
    text = utf8.decode(bytes);
  } catch {
    text = pdfDocEncodingDecode(bytes);
  }
  nameCache.set(name, text);
  return text;
}

// pdf-lib interns PDFName instances, so decoded text can be cached per instance.
const nameCache = new WeakMap<PDFName, string>();

/** A PDF text string (PDFDocEncoding, UTF-16BE with BOM, or PDF 2.0 UTF-8 with BOM). */
export function decodeTextBytes(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return utf16Decode(bytes);
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    try {
      return utf8.decode(bytes.subarray(3));
    } catch {
      // not UTF-8 after all: treat as PDFDocEncoding
    }
  }
  return pdfDocEncodingDecode(bytes);
}

/** Text of a string, hex string or name object; undefined for anything else. */
export function textOf(ctx: PDFContext, obj: PDFObject | undefined): string | undefined {
  const v = resolve(ctx, obj);
  if (v instanceof PDFString || v instanceof PDFHexString) return decodeTextBytes(v.asBytes());
  if (v instanceof PDFName) return nameText(v);
  return undefined;
}

/**
 * Decoded bytes of a stream as text, read lazily so that a decompression bomb costs at most
 * `maxBytes` of output. Undefined for streams that cannot be decoded.
 */
export function streamText(ctx: PDFContext, obj: PDFObject | undefined, maxBytes: number): string | undefined {
  const v = resolve(ctx, obj);
  if (!(v instanceof PDFStream)) return undefined;
  try {
    const bytes =
      v instanceof PDFRawStream ? decodePDFRawStream(v).getBytes(maxBytes) : v.getContents().subarray(0, maxBytes);
    return decodeTextBytes(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}
