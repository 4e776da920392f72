// A normalized template made, in memory, what parsing its saved base file would give: the one-shot
// render (one-shot.ts) writes from it the same bytes as a render on the service's prepared base, without
// the save and the second parse (a third of an offline render on large templates).
//
// What saving and parsing again change, and what is done here instead:
// - pdf-lib's save embeds pending fonts and images first: the same flush;
// - every stream's /Length becomes a direct number (the writer's size pass): set so, so a /Length object
//   that nothing else uses is no longer reached either;
// - streams pdf-lib built (redrawn appearances) come back as raw streams of their encoded bytes: replaced so;
// - one container (dictionary, array) held in two places comes back as two: each place gets its own copy,
//   so a render changing one changes only that one;
// - the largest object number becomes the largest one written (deleted ones at the top are gone).
// Where the parse could read back something else than was written (an object pdf-lib could not parse, a
// literal string whose parentheses do not balance, a number written in a form that reads back
// differently, a page-less document save() adds a page to, a stream the writer leaves out), this says so
// and the caller saves and parses as the service does.
import {
  PDFArray,
  PDFDict,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFStream,
  PDFString,
  type PDFDocument,
  type PDFObject,
  PDFRef,
} from '@cantoo/pdf-lib';

/** Numbers whose written form (pdf-lib's numberToString) is plain decimals that read back as the same number. */
function readsBackAsWritten(n: number): boolean {
  const a = Math.abs(n);
  return a === 0 || (a >= 1e-6 && a < 1e21);
}

/** A literal string's text (between its parentheses) that the parser reads back whole: balanced, no dangling escape. */
function balanced(text: string): boolean {
  let depth = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (escaped) escaped = false;
    else if (c === 0x5c) escaped = true;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth < 0) return false;
  }
  return depth === 0 && !escaped;
}

const TYPE = PDFName.of('Type');
const SKIPPED_BY_WRITER = new Set([PDFName.of('XRef'), PDFName.of('ObjStm')]);

/**
 * Settles the normalized document `doc` in place (see above). Returns false when it cannot promise the
 * parse's result: the caller then saves the base and parses it (the document may have been flushed and
 * sized already, which saving does anyway).
 */
export async function settleInMemory(doc: PDFDocument): Promise<boolean> {
  if (doc.getPageCount() === 0) return false; // save() would add a page
  await doc.flush();
  const ctx = doc.context;
  const catalog = ctx.lookup(ctx.trailerInfo.Root);
  if (!(catalog instanceof PDFDict) || catalog.lookup(TYPE) !== PDFName.of('Catalog')) return false;
  const seen = new Set<PDFObject>();
  const replace: [PDFRef, PDFObject][] = [];
  let largest = 0;
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    // one container under two numbers would come back as two
    if (obj instanceof PDFInvalidObject || seen.has(obj)) return false;
    if (obj instanceof PDFStream) {
      const type = obj.dict.lookup(TYPE);
      if (type instanceof PDFName && SKIPPED_BY_WRITER.has(type)) return false;
      // what the writer's size pass changes: a stream's /Length, set from its (encoded) contents (a stream
      // held directly, the other place it could reach, makes own() say no)
      obj.updateDict();
      if (!(obj instanceof PDFRawStream)) replace.push([ref, PDFRawStream.of(obj.dict, obj.getContents())]);
    }
    if (!own(obj, seen)) return false;
    largest = Math.max(largest, ref.objectNumber);
  }
  for (const [ref, raw] of replace) ctx.assign(ref, raw);
  ctx.largestObjectNumber = largest;
  return true;
}

/**
 * Walks one indirect object: every container in it is its own (a second holder gets a copy), and every
 * literal string and number reads back as written. False when one does not.
 */
function own(root: PDFObject, seen: Set<PDFObject>): boolean {
  if (!(root instanceof PDFDict || root instanceof PDFArray || root instanceof PDFStream))
    return ownValue(root, seen) !== undefined; // a number, string, name... of its own
  seen.add(root);
  const stack: PDFObject[] = [root instanceof PDFStream ? root.dict : root];
  if (root instanceof PDFStream) seen.add(root.dict);
  while (stack.length) {
    const o = stack.pop()!;
    if (o instanceof PDFDict) {
      for (const [key, v] of o.entries()) {
        const kept = ownValue(v, seen);
        if (kept === undefined) return false;
        if (kept !== v) o.set(key, kept);
        stack.push(kept);
      }
    } else if (o instanceof PDFArray) {
      for (let i = 0; i < o.size(); i++) {
        const v = o.get(i);
        const kept = ownValue(v, seen);
        if (kept === undefined) return false;
        if (kept !== v) o.set(i, kept);
        stack.push(kept);
      }
    }
  }
  return true;
}

/** The value to keep in its holder: itself, or a copy of a container already held elsewhere; undefined: unsafe. */
function ownValue(v: PDFObject, seen: Set<PDFObject>): PDFObject | undefined {
  if (v instanceof PDFName || v instanceof PDFRef) return v; // the most frequent, shared by nature
  if (v instanceof PDFNumber) return readsBackAsWritten(v.asNumber()) ? v : undefined;
  if (v instanceof PDFString) return balanced(v.asString()) ? v : undefined;
  if (v instanceof PDFStream || v instanceof PDFInvalidObject) return undefined; // a stream held directly
  if (!(v instanceof PDFDict || v instanceof PDFArray)) return v;
  if (!seen.has(v)) {
    seen.add(v);
    return v;
  }
  // shallow copies: the walk goes on into the copy, whose shared children are copied in turn
  const copy = v.clone();
  seen.add(copy);
  return copy;
}
