// The one set of small, total helpers over pdf-lib's object model, for the analyser and the fill engine
// alike. They return undefined instead of throwing on a missing or mistyped entry, because real forms put
// indirect refs, nulls and junk where the spec says otherwise; lookups follow references (a chain of them
// a few steps at most) and inherited lookups are bounded, so a /Parent cycle cannot hang. Internal to src/pdf/.
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFStream,
  PDFString,
  pdfDocEncodingDecode,
  utf16Decode,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { decodedBytes } from './stream-bytes.js';

/** Deepest /Parent chain we follow; real forms stay under ~10 levels. */
export const MAX_FIELD_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

// ---- names -----------------------------------------------------------------------------------------

// PDFName.of() runs a regex on every call; keys are a small fixed set, so memoise them. A memo of a pure
// function (pdf-lib interns names process-wide itself), not state: see docs/decisions.md.
const keyCache = new Map<string, PDFName>();
/** The interned PDFName for an ASCII key known at compile time, such as 'Kids' (compare with ===). */
export function N(key: string): PDFName {
  let name = keyCache.get(key);
  if (!name) keyCache.set(key, (name = PDFName.of(key)));
  return name;
}

export const hasKey = (dict: PDFDict, key: string): boolean => dict.has(N(key));

// ---- writes ------------------------------------------------------------------------------------------

// pdf-lib marks a dictionary changed on every set and delete, of what is already there too; a render's
// change tracker then copies it for the undo and the incremental writer rewrites it. These write a change only.

/** Sets `key` unless it already holds this very object (names are interned: an equal name is the same object). */
export function setChanged(dict: PDFDict, key: string, value: PDFObject): void {
  const k = N(key);
  if (dict.get(k) !== value) dict.set(k, value);
}

/** Removes `key` when it is there, an explicit null included (which pdf-lib's `has` denies). */
export function deleteIfPresent(dict: PDFDict, key: string): void {
  const k = N(key);
  if (dict.get(k, true) !== undefined) dict.delete(k);
}

/**
 * Names are raw bytes: UTF-8 when valid (what most producers write), else PDFDocEncoding. This is
 * the one decoding of a name: the analyser lists states by it and the filler finds them again by it
 * (compare nameText(key) over the dictionary's keys, or build the name with nameFromText); never
 * PDFName.of(text), which decodes #xx in the text a second time and re-encodes non-ASCII text.
 */
export function nameText(name: PDFName): string {
  let text = nameTexts.get(name);
  if (text !== undefined) return text;
  const bytes = name.asBytes();
  try {
    text = utf8.decode(bytes);
  } catch {
    text = pdfDocEncodingDecode(bytes);
  }
  nameTexts.set(name, text);
  return text;
}

// pdf-lib interns PDFName instances, so decoded text can be cached per instance.
const nameTexts = new WeakMap<PDFName, string>();

/** The dictionary's keys as decoded text (e.g. the appearance state names of /AP /N). */
export function keyNames(dict: PDFDict): string[] {
  return dict.keys().map(nameText);
}

/**
 * The name whose bytes are the char codes (0-255) of `bytes`. PDFName.of() decodes #xx escapes in
 * its argument, so every '#' is escaped first: a name byte '#' stays a '#', never half an escape.
 */
export function nameOfBytes(bytes: string): PDFName {
  return PDFName.of(bytes.replace(/#/g, '#23'));
}

/** The name that nameText() reads as `text`: its UTF-8 bytes. */
export function nameFromText(text: string): PDFName {
  return nameOfBytes(Buffer.from(text, 'utf8').toString('latin1'));
}

// ---- lookups ---------------------------------------------------------------------------------------

/** Follows indirect references (a chain of refs is followed at most a few steps). */
export function deref(ctx: PDFContext, obj: PDFObject | undefined): PDFObject | undefined {
  let cur = obj;
  for (let i = 0; i < 8 && cur instanceof PDFRef; i++) cur = ctx.lookup(cur);
  return cur instanceof PDFRef ? undefined : cur;
}

export function asDict(ctx: PDFContext, obj: PDFObject | undefined): PDFDict | undefined {
  const v = deref(ctx, obj);
  return v instanceof PDFDict ? v : undefined;
}

/** The entry's value, references followed. */
export function resolve(dict: PDFDict, key: string): PDFObject | undefined {
  return deref(dict.context, dict.get(N(key)));
}

export function getDict(dict: PDFDict, key: string): PDFDict | undefined {
  const v = resolve(dict, key);
  return v instanceof PDFDict ? v : undefined;
}

export function getArray(dict: PDFDict, key: string): PDFArray | undefined {
  const v = resolve(dict, key);
  return v instanceof PDFArray ? v : undefined;
}

export function getNumber(dict: PDFDict, key: string): number | undefined {
  const v = resolve(dict, key);
  return v instanceof PDFNumber && Number.isFinite(v.asNumber()) ? v.asNumber() : undefined;
}

export function getName(dict: PDFDict, key: string): PDFName | undefined {
  const v = resolve(dict, key);
  return v instanceof PDFName ? v : undefined;
}

/** A name entry as decoded text (see nameText). */
export function getNameText(dict: PDFDict, key: string): string | undefined {
  const v = getName(dict, key);
  return v ? nameText(v) : undefined;
}

/** Numbers of an array entry (e.g. /Rect), or undefined when any element is not a number. */
export function getNumbers(dict: PDFDict, key: string): number[] | undefined {
  const arr = getArray(dict, key);
  if (!arr) return undefined;
  const out: number[] = [];
  for (let i = 0; i < arr.size(); i++) {
    const v = arr.lookup(i);
    if (!(v instanceof PDFNumber)) return undefined;
    out.push(v.asNumber());
  }
  return out;
}

/** Walks the node and its /Parent chain (bounded, cycle-safe) and returns the first value found. */
export function inherited(dict: PDFDict, key: string, maxDepth = MAX_FIELD_DEPTH): PDFObject | undefined {
  let node: PDFDict | undefined = dict;
  const seen = new Set<PDFDict>();
  for (let depth = 0; node && depth < maxDepth && !seen.has(node); depth++) {
    seen.add(node);
    const v = resolve(node, key);
    if (v !== undefined) return v;
    node = getDict(node, 'Parent');
  }
  return undefined;
}

export function inheritedNumber(dict: PDFDict, key: string): number | undefined {
  const v = inherited(dict, key);
  return v instanceof PDFNumber ? v.asNumber() : undefined;
}

// ---- text ------------------------------------------------------------------------------------------

// pdf-lib's decoders spread every code point into one call (String.fromCodePoint(...all)), which overflows
// the stack past ~100 KB: longer text (a form's big script) is decoded in pieces or by TextDecoder.
const DECODE_CHUNK = 16 * 1024;
const utf16be = new TextDecoder('utf-16be');

function pdfDocText(bytes: Uint8Array): string {
  if (bytes.length <= DECODE_CHUNK) return pdfDocEncodingDecode(bytes);
  let out = '';
  for (let i = 0; i < bytes.length; i += DECODE_CHUNK) out += pdfDocEncodingDecode(bytes.subarray(i, i + DECODE_CHUNK));
  return out;
}

/** A PDF text string (PDFDocEncoding, UTF-16BE with BOM, or PDF 2.0 UTF-8 with BOM). */
function decodeTextBytes(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    return bytes.length <= DECODE_CHUNK ? utf16Decode(bytes) : utf16be.decode(bytes);
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    try {
      return utf8.decode(bytes.subarray(3));
    } catch {
      // not UTF-8 after all: treat as PDFDocEncoding
    }
  }
  return pdfDocText(bytes);
}

/**
 * `text` as a UTF-16BE hex string with BOM, the same bytes as pdf-lib's PDFHexString.fromText, which
 * builds one small string per code unit: ~15 ms and much garbage for a 100,000-character value, ~1 ms here.
 */
export function hexTextString(text: string): PDFHexString {
  return PDFHexString.of(`FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}`);
}

/** Text of a string, hex string or name object (already looked up); undefined for anything else. */
export function textOf(obj: PDFObject | undefined): string | undefined {
  if (obj instanceof PDFString || obj instanceof PDFHexString) return decodeTextBytes(obj.asBytes());
  if (obj instanceof PDFName) return nameText(obj);
  return undefined;
}

/**
 * Decoded bytes of a stream as text, read lazily so that a decompression bomb costs at most
 * `maxBytes` of output. Undefined for streams that cannot be decoded.
 */
export function streamText(ctx: PDFContext, obj: PDFObject | undefined, maxBytes: number): string | undefined {
  const v = deref(ctx, obj);
  if (!(v instanceof PDFStream)) return undefined;
  try {
    return decodeTextBytes(decodedBytes(v, maxBytes, { cut: true }));
  } catch {
    return undefined;
  }
}
