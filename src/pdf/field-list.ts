// Repairs /AcroForm /Fields so that other readers see every field we fill. pdftk, pdf.js and
// Acrobat find fields by walking /Fields and /Kids downwards; damaged re-saves leave widgets that
// only a page's /Annots reaches (the analyser finds them by walking /Parent upwards), and some
// producers list kid widgets in /Fields instead of their parent field. Done once, at prepare time.
// Names do not change: a field's name is its /Parent chain's /T entries, which we keep as they are.
import { PDFArray, PDFDict, PDFRef, type PDFContext } from '@cantoo/pdf-lib';
import type { RawField } from './field-tree.js';
import { MAX_FIELD_DEPTH, N, getArray, getDict } from './fill-objects.js';

/**
 * Makes every field of `fields` reachable from /AcroForm /Fields: /Fields lists root fields only
 * (a listed kid is replaced by the top of its /Parent chain), each orphan's root is added, and each
 * parent's /Kids lists the child it was reached from. Creates /AcroForm when the catalog has none.
 * Returns the (possibly new) AcroForm dictionary.
 */
export function repairFieldList(ctx: PDFContext, catalog: PDFDict, acroForm: PDFDict | undefined, fields: RawField[]): PDFDict | undefined {
  const listed = acroForm ? getArray(acroForm, 'Fields') : undefined;
  const entries: PDFDict[] = [];
  for (let i = 0; i < (listed?.size() ?? 0); i++) {
    const d = listed!.lookup(i);
    if (d instanceof PDFDict) entries.push(d);
  }
  const orphans = fields.filter((f) => !f.inAcroFormFields);
  const kidsListed = entries.some((d) => getDict(d, 'Parent'));
  if (orphans.length === 0 && !kidsListed) return acroForm;

  const refs = refsOf(ctx);
  const roots: PDFDict[] = [];
  const seen = new Set<PDFDict>();
  const add = (d: PDFDict) => {
    const root = rootOf(d, refs);
    if (!seen.has(root) && refs.has(root)) {
      seen.add(root);
      roots.push(root);
    }
  };
  for (const d of entries) add(d);
  for (const f of orphans) for (const w of f.widgets) add(w);
  if (roots.length === 0) return acroForm;

  let form = acroForm;
  if (!form) {
    form = ctx.obj({});
    catalog.set(N('AcroForm'), ctx.register(form));
  }
  const arr = PDFArray.withContext(ctx);
  for (const r of roots) arr.push(refs.get(r)!);
  // Entries that were not dictionaries (nulls, dangling refs) are dropped with the rewrite.
  form.set(N('Fields'), arr);
  return form;
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
