// Repairs /AcroForm /Fields so that other readers see every field we fill. pdftk, pdf.js and
// Acrobat find fields by walking /Fields and /Kids downwards; damaged re-saves leave widgets that
// only a page's /Annots reaches (the analyser finds them by walking /Parent upwards), and some
// producers list kid widgets in /Fields instead of their parent field. Done once, at prepare time.
// Names do not change: a field's name is its /Parent chain's /T entries, which we keep as they are.
import { PDFArray, PDFDict, type PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { MAX_FIELD_DEPTH, N, getArray, getDict } from '../pdf-objects.js';

/**
 * Makes every field of `fields` reachable from /AcroForm /Fields: /Fields lists root fields only
 * (a listed kid is replaced by the top of its /Parent chain), each orphan's root is added, and each
 * parent's /Kids lists the child it was reached from.
 */
export function repairFieldList(ctx: PDFContext, acroForm: PDFDict | undefined, fields: RawField[]): void {
  // Without /AcroForm the analyser rejects the template: there is no form to repair.
  if (!acroForm) return;
  const listed = getArray(acroForm, 'Fields');
  const entries: PDFDict[] = [];
  for (let i = 0; i < (listed?.size() ?? 0); i++) {
    const d = listed!.lookup(i);
    if (d instanceof PDFDict) entries.push(d);
  }
  const orphans = fields.filter((f) => !f.inAcroFormFields);
  const kidsListed = entries.some((d) => getDict(d, 'Parent'));
  if (orphans.length === 0 && !kidsListed) return;

  const refs = refsOf(ctx);
  const roots: PDFObject[] = [];
  const seen = new Set<PDFDict>();
  // `entry` is what /Fields held for d: kept when d cannot be replaced by a referenced root.
  const add = (d: PDFDict, entry?: PDFObject) => {
    const root = rootOf(d, refs);
    if (seen.has(root)) return;
    const ref = refs.get(root) ?? (root === d ? entry : undefined);
    if (!ref) return;
    seen.add(root);
    roots.push(ref);
  };
  for (let i = 0; i < (listed?.size() ?? 0); i++) {
    const d = listed!.lookup(i);
    if (d instanceof PDFDict) add(d, listed!.get(i));
  }
  for (const f of orphans) for (const w of f.widgets) add(w);
  if (roots.length === 0) return;

  const arr = PDFArray.withContext(ctx);
  for (const r of roots) arr.push(r);
  // Entries that were not dictionaries (nulls, dangling refs) are dropped with the rewrite.
  acroForm.set(N('Fields'), arr);
}

/** Indirect objects by dictionary (only dictionaries held by reference can be listed). */
function refsOf(ctx: PDFContext): Map<PDFDict, PDFRef> {
  const refs = new Map<PDFDict, PDFRef>();
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) if (obj instanceof PDFDict) refs.set(obj, ref);
  return refs;
}

/**
 * The top of `d`'s /Parent chain (bounded, cycle-safe). On the way up, a parent whose /Kids lacks
 * the child gets it appended, so that walking down from the root reaches `d` again. A parent without
 * /Kids gets them; the walk stops below a parent held directly (not by reference) or a widget.
 */
function rootOf(d: PDFDict, refs: Map<PDFDict, PDFRef>): PDFDict {
  const seen = new Set<PDFDict>([d]);
  let cur = d;
  for (let depth = 0; depth < MAX_FIELD_DEPTH; depth++) {
    const parent = getDict(cur, 'Parent');
    const childRef = refs.get(cur);
    if (!parent || seen.has(parent) || !refs.has(parent) || !childRef) break;
    // A parent that is a widget itself (merged field/widget) is not made a field node.
    let kids = getArray(parent, 'Kids');
    if (!kids) {
      if (parent.has(N('Rect')) || parent.get(N('Subtype')) === N('Widget')) break;
      kids = PDFArray.withContext(parent.context);
      parent.set(N('Kids'), kids);
    }
    seen.add(parent);
    let found = false;
    for (let i = 0; i < kids.size() && !found; i++) found = kids.get(i) === childRef || kids.lookup(i) === cur;
    if (!found) kids.push(childRef);
    cur = parent;
  }
  return cur;
}
