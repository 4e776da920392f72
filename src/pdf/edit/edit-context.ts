// The document being edited and what the edit steps share: its pages, its fields by name (kept current
// as fields are added and deleted), the fonts appearances draw with, and the fields to redraw at the end.
import {
  type PDFArray,
  type PDFDict,
  PDFHexString,
  PDFString,
  StandardFonts,
  type PDFContext,
  type PDFDocument,
} from '@cantoo/pdf-lib';
import type { FontSet } from '../fonts/fonts.js';
import type { RawField } from '../field-tree.js';
import type { PageNode } from '../pages.js';
import { N, getArray, getDict, inherited, resolve } from '../pdf-objects.js';

export interface EditContext {
  doc: PDFDocument;
  ctx: PDFContext;
  catalog: PDFDict;
  pages: PageNode[];
  fonts: FontSet;
  /** fields by fully qualified name */
  fields: Map<string, RawField>;
  /** fields whose appearances are drawn once every edit is in (styles are read once per widget) */
  redraw: Set<RawField>;
}

/** The resource name of Helvetica in /AcroForm /DR, the font of every /DA the editor writes. */
const HELV = 'Helv';
const ZADB = 'ZaDb';

/** The document's /AcroForm, created (with /Fields, /DA and /DR) when the file has none. */
export function acroFormOf(ec: EditContext): PDFDict {
  let form = getDict(ec.catalog, 'AcroForm');
  if (!form) {
    form = ec.ctx.obj({ Fields: [], DA: PDFString.of(`/${HELV} 0 Tf 0 g`) });
    ec.catalog.set(N('AcroForm'), ec.ctx.register(form));
  }
  if (!getArray(form, 'Fields')) form.set(N('Fields'), ec.ctx.obj([]));
  // Viewers that build appearances themselves look the /DA fonts up here: Helvetica and ZapfDingbats.
  let dr = getDict(form, 'DR');
  if (!dr) form.set(N('DR'), (dr = ec.ctx.obj({})));
  let fonts = getDict(dr, 'Font');
  if (!fonts) dr.set(N('Font'), (fonts = ec.ctx.obj({})));
  if (!fonts.has(N(HELV))) fonts.set(N(HELV), ec.fonts.standardFont(StandardFonts.Helvetica).ref);
  if (!fonts.has(N(ZADB))) fonts.set(N(ZADB), ec.fonts.standardFont(StandardFonts.ZapfDingbats).ref);
  return form;
}

/** A /DA of Helvetica at `size` (0: automatic), black. */
export const helvDa = (size: number) => PDFString.of(`/${HELV} ${formatSize(size)} Tf 0 g`);

const formatSize = (size: number) => String(Math.round(size * 100) / 100);

/** The field's /DA as viewers resolve it: the widget's, its /Parent chain's, else the form's. */
export function daText(dict: PDFDict, acroForm: PDFDict): string {
  const v = inherited(dict, 'DA') ?? resolve(acroForm, 'DA');
  return v instanceof PDFString || v instanceof PDFHexString ? v.decodeText() : '';
}

/** `da` (read from the file) with its font size replaced, a Helvetica Tf added when it has none. */
export function daWithSize(da: string, size: number): PDFHexString {
  const tf = /(\/[^\s/]+)\s+[-+.\d]+\s+Tf/;
  const text = tf.test(da) ? da.replace(tf, `$1 ${formatSize(size)} Tf`) : `/${HELV} ${formatSize(size)} Tf ${da}`;
  return PDFHexString.fromText(text.trim());
}

/** The page's /Annots array, created when missing (a shared or inline array is used as it is). */
export function annotsOf(ec: EditContext, page: PDFDict): PDFArray {
  let annots = getArray(page, 'Annots');
  if (!annots) page.set(N('Annots'), (annots = ec.ctx.obj([])));
  return annots;
}
