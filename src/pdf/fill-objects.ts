// The fill engine's accessors over pdf-lib objects (dict-first signatures, no context argument).
// Every lookup tolerates a missing or mistyped entry; inherited lookups are bounded so a /Parent cycle cannot hang.
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFString,
  type PDFObject,
} from '@cantoo/pdf-lib';

/** Deepest /Parent chain we follow; real forms stay under ~10 levels. */
export const MAX_FIELD_DEPTH = 64;

const names = new Map<string, PDFName>();
/** Interned PDFName for a key known at compile time. */
export function N(name: string): PDFName {
  let n = names.get(name);
  if (!n) names.set(name, (n = PDFName.of(name)));
  return n;
}

export function resolve(dict: PDFDict, key: string): PDFObject | undefined {
  const value = dict.get(N(key));
  return value instanceof PDFRef ? dict.context.lookup(value) : value;
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
  return v instanceof PDFNumber ? v.asNumber() : undefined;
}

export function getName(dict: PDFDict, key: string): PDFName | undefined {
  const v = resolve(dict, key);
  return v instanceof PDFName ? v : undefined;
}

/** Text of a string object (PDFDocEncoding or UTF-16BE), else undefined. */
export function textOf(obj: PDFObject | undefined): string | undefined {
  if (obj instanceof PDFString || obj instanceof PDFHexString) return obj.decodeText();
  return undefined;
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
export function inherited(dict: PDFDict, key: string): PDFObject | undefined {
  let node: PDFDict | undefined = dict;
  const seen = new Set<PDFDict>();
  for (let depth = 0; node && depth < MAX_FIELD_DEPTH && !seen.has(node); depth++) {
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

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Every plausible text reading of a name: its raw bytes (Latin-1) and, when valid, UTF-8.
 * Callers (and the analyser) may spell a state name either way; both must find the same state.
 */
export function nameReadings(name: PDFName): string[] {
  const raw = name.decodeText();
  const out = [raw];
  try {
    const u = utf8.decode(name.asBytes());
    if (u !== raw) out.push(u);
  } catch {
    // not UTF-8: the Latin-1 reading is all there is
  }
  return out;
}
