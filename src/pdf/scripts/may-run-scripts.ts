// Whether a parsed document seems to hold a script that makes renders open a session, read from its objects
// alone, before the analysis and the field tree: the offline render starts the script sandbox's thread on a
// yes, so that loading QuickJS overlaps the analysis and the preparation. Either answer is safe: a yes costs
// at most a thread that goes unused (the form's plan decides what runs), a no only means the thread starts
// later, when a render needs it. A session is opened by a calculation, a validate script, or a keystroke
// script other than Acrobat's checks the render data already makes (session-plan.ts) and AFSpecial's
// (special-check.ts): so a yes is an /AA dictionary with such a /C, /V or /K action. Format scripts,
// document scripts and link actions run only inside a session, if one is opened. The walk stays cheap:
// dictionaries and the dictionaries nested in them or listed in their arrays, never streams (an action is
// never one) nor arrays of arrays (large number arrays cost, and hold no actions).
import { PDFArray, PDFDict, PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { N, textOf } from '../pdf-objects.js';
import { nativeCheck } from './session-plan.js';
import { specialKeystroke } from './special-check.js';

/** True when a field's or widget's /AA (indirect, or nested in a dictionary) may open a script session. */
export function mayRunScripts(ctx: PDFContext): boolean {
  const AA = N('AA');
  const JS = N('JS');
  const resolve = (o: PDFObject | undefined) => (o instanceof PDFRef ? ctx.lookup(o) : o);
  const opensSession = (aa: PDFDict, event: string): boolean => {
    const action = resolve(aa.get(N(event)));
    if (!(action instanceof PDFDict)) return false;
    const js = resolve(action.get(JS));
    if (js === undefined) return false;
    if (event !== 'K' || action.has(N('Next'))) return true;
    const code = textOf(js); // a stream (undefined here) is not read: a yes
    if (code === undefined) return true;
    return code.trim() !== '' && !nativeCheck(code) && specialKeystroke(code) === undefined;
  };
  // direct objects only (a reference is walked as the indirect object it names): no cycle
  const walk = (dict: PDFDict): boolean => {
    const aa = resolve(dict.get(AA));
    if (aa instanceof PDFDict && (opensSession(aa, 'C') || opensSession(aa, 'V') || opensSession(aa, 'K'))) return true;
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
