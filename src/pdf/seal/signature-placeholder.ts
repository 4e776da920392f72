// The revision a signature goes into (PAdES, ISO 32000-2 12.8): an invisible signature field on the
// first page whose signature dictionary holds a /ByteRange to fill and a /Contents of zeros for the
// CMS, appended to the finished file as an incremental update so every byte signed stays as it was.
// @signpdf/signpdf then computes the byte range and writes the CMS into /Contents.
import { PDFArray, PDFDict, PDFHexString, PDFNumber, PDFString, type PDFRef } from '@cantoo/pdf-lib';
import { loadPdf } from '../load.js';
import { N, getDict } from '../pdf-objects.js';
import { ChangeTracker } from '../writer/change-tracker.js';
import { findStartXref, writeIncrement } from '../writer/incremental-writer.js';
import { PdfEngineError } from '../types.js';

/** What @signpdf/utils looks for (DEFAULT_BYTE_RANGE_PLACEHOLDER): `/ByteRange [0 /********** ...]`. */
const BYTE_RANGE_PLACEHOLDER = '**********';

export interface SignatureSlot {
  reason: string;
  location: string;
  /** the signer's name, shown by readers beside the signature */
  name: string;
  signingTime: Date;
  /** bytes reserved for the CMS (its hex form takes twice as many) */
  contentsBytes: number;
}

const SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY = 3;
const ANNOT_PRINT_LOCKED = 4 | 128;

/** D:YYYYMMDDHHmmSS+00'00' */
function pdfDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}+00'00'`;
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

/** The file with a last revision holding an unsigned signature field, ready for @signpdf/signpdf. */
export async function addSignatureSlot(bytes: Uint8Array, slot: SignatureSlot): Promise<Uint8Array> {
  const startXref = findStartXref(bytes);
  if (startXref === undefined)
    throw new PdfEngineError('RENDER_FAILED', 'the output has no cross-reference to sign after');
  const { doc, context: ctx, catalog, encrypted } = await loadPdf(bytes, { forIncrementalUpdate: true });
  if (encrypted) throw new PdfEngineError('RENDER_FAILED', 'an encrypted output cannot be signed');
  const tracker = new ChangeTracker(ctx);
  tracker.begin();
  const page = doc.getPage(0);

  const sig = ctx.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
    // before /Contents: @signpdf/signpdf looks for /Contents after the byte range
    ByteRange: ctx.obj([0, N(BYTE_RANGE_PLACEHOLDER), N(BYTE_RANGE_PLACEHOLDER), N(BYTE_RANGE_PLACEHOLDER)]),
    Contents: PDFHexString.of('0'.repeat(slot.contentsBytes * 2)),
    Reason: PDFHexString.fromText(slot.reason),
    Location: PDFHexString.fromText(slot.location),
    Name: PDFHexString.fromText(slot.name),
    M: PDFString.of(pdfDate(slot.signingTime)),
  });
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
  const widget = ctx.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Sig',
    T: PDFHexString.fromText(freeName(fieldArray, (o) => ctx.lookupMaybe(o as PDFRef, PDFDict))),
    F: ANNOT_PRINT_LOCKED,
    Rect: [0, 0, 0, 0],
    V: sigRef,
    P: page.ref,
  });
  const widgetRef = ctx.register(widget);
  fieldArray.push(widgetRef);
  acroForm.set(N('SigFlags'), PDFNumber.of(SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY));
  page.node.addAnnot(widgetRef);

  const update = writeIncrement(ctx, { bytes, startXref }, tracker.changed(), tracker.baseMax);
  const out = new Uint8Array(bytes.length + update.length);
  out.set(bytes, 0);
  out.set(update, bytes.length);
  return out;
}
