// Form-level clean-up done on every render. Hybrid XFA forms: viewers that understand XFA would
// show the (stale) XFA data instead of our AcroForm values, so /XFA goes. /NeedAppearances goes
// too: we write an appearance for every value we set, and the flag makes viewers redraw (and
// sometimes drop) them.
import type { PDFDict } from '@cantoo/pdf-lib';
import { N } from '../pdf-objects.js';

export function dropXfaAndNeedAppearances(catalog: PDFDict, acroForm: PDFDict | undefined): void {
  catalog.delete(N('NeedsRendering'));
  if (!acroForm) return;
  acroForm.delete(N('XFA'));
  acroForm.delete(N('NeedAppearances'));
}
