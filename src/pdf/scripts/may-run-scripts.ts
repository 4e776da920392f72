// Whether a parsed document seems to hold a JavaScript action, read from its objects alone, before the
// analysis and the field tree: the offline render starts the script sandbox's thread on a yes, so that
// loading QuickJS overlaps the analysis and the preparation. Either answer is safe: a yes costs at most a
// thread that goes unused (the form's plan decides what runs), a no only means the thread starts later,
// when preparation has read the form's scripts (as it always did). So the walk stays cheap: dictionaries
// and the dictionaries nested in them or listed in their arrays (name trees, /Next lists), never streams
// (an action is never one) nor arrays of arrays (large number arrays cost, and hold no actions).
import { PDFArray, PDFDict, type PDFContext, type PDFObject, type PDFRef } from '@cantoo/pdf-lib';
import { N } from '../pdf-objects.js';

/** True when a dictionary of the document (indirect, or nested in one) has a /JS entry. */
export function mayRunScripts(ctx: PDFContext): boolean {
  const js = N('JS');
  // direct objects only (a reference is walked as the indirect object it names): no cycle
  const walk = (dict: PDFDict): boolean => {
    if (dict.has(js)) return true;
    for (const [, value] of dict.entries()) {
      if (value instanceof PDFDict) {
        if (walk(value)) return true;
      } else if (value instanceof PDFArray) {
        for (let i = 0; i < value.size(); i++) {
          const item = value.get(i);
          if (item instanceof PDFDict && walk(item)) return true;
        }
      }
    }
    return false;
  };
  // the context's own map (enumerateIndirectObjects() copies and sorts it; the order is of no use here);
  // a stream is no PDFDict, and is skipped
  const objects = (ctx as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects;
  for (const obj of objects.values()) if (obj instanceof PDFDict && walk(obj)) return true;
  return false;
}
