// The revision a signature goes into (PAdES, ISO 32000-2 12.8): a signature field whose signature
// dictionary holds a /ByteRange to fill and a /Contents of zeros for the CMS, appended to the finished
// file as an incremental update so every byte signed stays as it was. Visible when the template has a
// signature field: its own field when the output still has it (not flattened), else a new one on the
// same page and rectangle; otherwise invisible on the first page. The byte range is then filled
// byte range in place (byte-range.ts); the caller hashes it and writes the CMS into /Contents.
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFNumber,
  PDFString,
  type PDFContext,
  type PDFDocument,
  type PDFRef,
} from '@cantoo/pdf-lib';
import { collectFields, type RawField } from '../field-tree.js';
import { FontSet } from '../fonts/fonts.js';
import { FontLibrary } from '../fonts/font-library.js';
import { FontSubsets } from '../fonts/unicode-font.js';
import { pageRotation } from '../page-geometry.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { loadPdf } from '../load.js';
import { collectPages } from '../pages.js';
import { N, getDict, getNumber, getNumbers, resolve } from '../pdf-objects.js';
import { signatureAppearance, type SignatureBox } from './signature-appearance.js';
import { fillByteRange, type SignatureSlotBytes } from './byte-range.js';
import { ChangeTracker } from '../writer/change-tracker.js';
import { findStartXref, writeIncrement } from '../writer/incremental-writer.js';
import { PdfEngineError, type Rect } from '../types.js';

/** Ten characters: room for any offset of a file up to 10 GB (byte-range.ts writes over it). */
const BYTE_RANGE_PLACEHOLDER = '**********';

/** What the signature dictionary says of an invisible signature (a combined file's). */
export interface SignatureSlot {
  reason: string;
  location: string;
  /** the signer's name, shown by readers beside the signature */
  name: string;
  signingTime: Date;
  /** bytes reserved for the CMS (its hex form takes twice as many) */
  contentsBytes: number;
}

export interface RenderSignatureSlot extends SignatureSlot {
  /** where the template's signature field was, and what its appearance says; absent: invisible */
  visible?: VisibleSignature;
}

export interface VisibleSignature {
  /** the field's fully qualified name, reused when the output still has it unsigned */
  fieldName: string;
  /** 1-based */
  page: number;
  rect: Rect;
  lines: string[];
}

export const SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY = 3;
export const ANNOT_PRINT_LOCKED = 4 | 128;

/** D:YYYYMMDDHHmmSS+00'00' */
function pdfDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}+00'00'`;
}

/**
 * The signature dictionary with an empty /Contents of `slot.contentsBytes` and the byte range's
 * placeholder, both filled later in place (byte-range.ts).
 */
export function signatureDictionary(ctx: PDFContext, slot: SignatureSlot): PDFDict {
  return ctx.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
    // before /Contents: byte-range.ts looks for /Contents after the byte range
    ByteRange: ctx.obj([0, N(BYTE_RANGE_PLACEHOLDER), N(BYTE_RANGE_PLACEHOLDER), N(BYTE_RANGE_PLACEHOLDER)]),
    Contents: PDFHexString.of('0'.repeat(slot.contentsBytes * 2)),
    Reason: PDFHexString.fromText(slot.reason),
    Location: PDFHexString.fromText(slot.location),
    Name: PDFHexString.fromText(slot.name),
    M: PDFString.of(pdfDate(slot.signingTime)),
  });
}

/** A field name no field of the form has yet. */
function freeName(fields: PDFArray, ctxLookup: (o: unknown) => PDFDict | undefined): string {
  const taken = new Set<string>();
  for (let i = 0; i < fields.size(); i++) {
    const t = ctxLookup(fields.get(i))?.get(N('T'));
    if (t instanceof PDFString || t instanceof PDFHexString) taken.add(t.decodeText());
  }
  let n = 1;
  while (taken.has(`Signature${n}`)) n++;
  return `Signature${n}`;
}

/**
 * The widget's box and turn: its own /MK /R when it has one (the form's author said how it reads),
 * else its page's /Rotate, written into /MK /R so that the text reads upright as the page is shown
 * and a viewer that redraws the widget turns it the same way.
 */
function boxOf(ctx: PDFContext, widget: PDFDict, page: PDFDict | undefined, rect: number[]): SignatureBox {
  let mk = getDict(widget, 'MK');
  let r = mk && getNumber(mk, 'R');
  if (r === undefined) {
    r = page ? pageRotation(page) : 0;
    if (r) {
      if (!mk) widget.set(N('MK'), (mk = ctx.obj({})));
      mk.set(N('R'), PDFNumber.of(r));
    }
  }
  const rotation = ((((Math.round(r / 90) * 90) % 360) + 360) % 360) as SignatureBox['rotation'];
  const [width, height] = size(rect);
  return { width, height, rotation };
}

/** The output's own unsigned signature field named `name` (a render that did not flatten keeps it). */
function unsignedField(ctx: PDFContext, catalog: PDFDict, acroForm: PDFDict, name: string): RawField | undefined {
  const pages = collectPages(ctx, catalog, DEFAULT_LIMITS);
  return collectFields(ctx, acroForm, pages, DEFAULT_LIMITS).find(
    (f) => f.fullName === name && resolve(f.dict, 'FT') === N('Sig') && !f.dict.has(N('V')) && f.widgets.length > 0,
  );
}

const pageDict = (doc: PDFDocument, index: number): PDFDict | undefined =>
  index < doc.getPageCount() ? doc.getPage(index).node : undefined;

const size = (r: number[]) => [Math.abs(r[2] - r[0]), Math.abs(r[3] - r[1])] as const;

/** The file with a last revision holding an unsigned signature field, its byte range filled. */
export async function addSignatureSlot(
  bytes: Uint8Array,
  slot: RenderSignatureSlot,
  library?: FontLibrary,
): Promise<SignatureSlotBytes> {
  const startXref = findStartXref(bytes);
  if (startXref === undefined)
    throw new PdfEngineError('RENDER_FAILED', 'the output has no cross-reference to sign after');
  const { doc, context: ctx, catalog, encrypted } = await loadPdf(bytes, { forIncrementalUpdate: true });
  if (encrypted) throw new PdfEngineError('RENDER_FAILED', 'an encrypted output cannot be signed');
  const tracker = new ChangeTracker(ctx);
  tracker.begin();

  const sig = signatureDictionary(ctx, slot);
  const sigRef = ctx.register(sig);

  let acroForm = getDict(catalog, 'AcroForm');
  if (!acroForm) {
    acroForm = ctx.obj({ Fields: [] });
    catalog.set(N('AcroForm'), ctx.register(acroForm));
  }
  let fields = acroForm.lookup(N('Fields'));
  if (!(fields instanceof PDFArray)) {
    fields = ctx.obj([]);
    acroForm.set(N('Fields'), fields as PDFArray);
  }
  const fieldArray = fields as PDFArray;
  acroForm.set(N('SigFlags'), PDFNumber.of(SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY));

  const visible = slot.visible;
  // fonts only for an appearance (an invisible signature draws nothing)
  const fonts = visible && new FontSet(doc, library ?? new FontLibrary(), new FontSubsets());
  const own = visible && unsignedField(ctx, catalog, acroForm, visible.fieldName);
  if (own && fonts) {
    // the form's field itself: signed in place, its (first) widget showing the signature
    own.dict.set(N('V'), sigRef);
    const widget = own.widgets[0];
    const rect = getNumbers(widget, 'Rect') ?? visible.rect;
    const page = own.widgetPages[0] >= 0 ? pageDict(doc, own.widgetPages[0]) : undefined;
    const box = boxOf(ctx, widget, page, rect);
    widget.set(N('AP'), ctx.obj({ N: signatureAppearance(ctx, fonts, box, visible.lines) }));
    widget.set(N('F'), PDFNumber.of(ANNOT_PRINT_LOCKED));
  } else {
    const onPage = visible && visible.page >= 1 && visible.page <= doc.getPageCount();
    const page = doc.getPage(onPage ? visible.page - 1 : 0);
    const rect = onPage ? visible.rect : [0, 0, 0, 0];
    const widget = ctx.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      T: PDFHexString.fromText(freeName(fieldArray, (o) => ctx.lookupMaybe(o as PDFRef, PDFDict))),
      F: ANNOT_PRINT_LOCKED,
      Rect: rect,
      V: sigRef,
      P: page.ref,
    });
    if (onPage && fonts) {
      const box = boxOf(ctx, widget, page.node, rect);
      widget.set(N('AP'), ctx.obj({ N: signatureAppearance(ctx, fonts, box, visible.lines) }));
    }
    const widgetRef = ctx.register(widget);
    fieldArray.push(widgetRef);
    page.node.addAnnot(widgetRef);
  }

  if (fonts) await doc.flush(); // the fonts the appearance uses
  const update = writeIncrement(ctx, { bytes, startXref }, tracker.changed(), tracker.baseMax);
  const out = new Uint8Array(bytes.length + update.length);
  out.set(bytes, 0);
  out.set(update, bytes.length);
  return fillByteRange(out, bytes.length);
}
