// A signed item's signatures stay out of a combined file: each covers the bytes of its own file, so in
// another file readers would report it broken. Its signature fields and widgets are removed from the
// item (as parsed for combining, never from its stored file); the combined file is signed as a whole
// when the batch asks for it.
import { PDFArray, type PDFContext, type PDFDict } from '@cantoo/pdf-lib';
import { collectFields } from '../field-tree.js';
import { DEFAULT_LIMITS } from '../limits.js';
import type { PageNode } from '../pages.js';
import { N, getDict, resolve } from '../pdf-objects.js';

/** `array` without the entries that resolve to one of `drop`. */
function without(ctx: PDFContext, array: PDFArray, drop: Set<PDFDict>): void {
  for (let i = array.size() - 1; i >= 0; i--) {
    const entry = ctx.lookup(array.get(i));
    if (entry && drop.has(entry as PDFDict)) array.remove(i);
  }
}

/** Removes every signed signature field (`/FT /Sig` with a `/V`) and its widgets; answers how many. */
export function dropSignedFields(ctx: PDFContext, catalog: PDFDict, pages: PageNode[]): number {
  const acroForm = getDict(catalog, 'AcroForm');
  if (!acroForm) return 0;
  const signed = collectFields(ctx, acroForm, pages, DEFAULT_LIMITS).filter(
    (f) => resolve(f.dict, 'FT') === N('Sig') && f.dict.has(N('V')),
  );
  if (signed.length === 0) return 0;
  const drop = new Set<PDFDict>(signed.flatMap((f) => [f.dict, ...f.widgets]));
  for (const { dict } of pages) {
    const annots = dict.lookup(N('Annots'));
    if (annots instanceof PDFArray) without(ctx, annots, drop);
  }
  const fields = acroForm.lookup(N('Fields'));
  if (fields instanceof PDFArray) without(ctx, fields, drop);
  for (const f of signed) {
    const kids = getDict(f.dict, 'Parent')?.lookup(N('Kids'));
    if (kids instanceof PDFArray) without(ctx, kids, drop);
  }
  return signed.length;
}
