// STAND-IN, replaced on merge by the merge helper's combine (branch h-merge, same file and signature):
// lets the batch API run end to end meanwhile. Every page of every item in order; an unflattened item's
// top-level fields are renamed "name#n" (n = item number, from 1) so no two copies share a value.
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFObjectCopier,
  PDFPage,
  PDFRef,
  PDFString,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { PdfEngineError } from '../types.js';

export interface CombineItem {
  bytes: Uint8Array;
  /** the render was flattened: its pages are all it brings */
  flattened: boolean;
}

export async function combineRenders(items: CombineItem[]): Promise<Uint8Array> {
  if (items.length === 0) throw new PdfEngineError('RENDER_FAILED', 'there is nothing to combine');
  const out = await PDFDocument.create({ updateMetadata: false });
  const fields: PDFRef[] = [];
  let da: PDFObject | undefined;
  let dr: PDFObject | undefined;
  for (const [index, item] of items.entries()) {
    let src: PDFDocument;
    try {
      src = await PDFDocument.load(item.bytes, { ignoreEncryption: true, updateMetadata: false });
    } catch {
      throw new PdfEngineError('RENDER_FAILED', `item ${index + 1} could not be read`);
    }
    const copier = PDFObjectCopier.for(src.context, out.context);
    const roots: PDFRef[] = [];
    const acro = src.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
    const list = acro?.lookupMaybe(PDFName.of('Fields'), PDFArray);
    if (!item.flattened && acro && list) {
      for (let k = 0; k < list.size(); k++) {
        const ref = list.get(k);
        if (!(ref instanceof PDFRef)) continue;
        const field = src.context.lookupMaybe(ref, PDFDict);
        if (!field) continue;
        const t = field.lookupMaybe(PDFName.of('T'), PDFString, PDFHexString)?.decodeText() ?? '';
        field.set(PDFName.of('T'), PDFHexString.fromText(`${t}#${index + 1}`));
        roots.push(ref);
      }
      da ??= acro.get(PDFName.of('DA'));
      const itemDr = acro.get(PDFName.of('DR'));
      if (itemDr && !dr) dr = copier.copy(itemDr);
    }
    for (const page of src.getPages()) {
      const copied = copier.copy(page.node);
      out.addPage(PDFPage.of(copied, out.context.register(copied), out));
    }
    for (const ref of roots) fields.push(copier.copy(ref));
  }
  if (fields.length) {
    const form = out.context.obj({ Fields: fields, NeedAppearances: false });
    if (da) form.set(PDFName.of('DA'), da);
    if (dr) form.set(PDFName.of('DR'), dr);
    out.catalog.set(PDFName.of('AcroForm'), out.context.register(form));
  }
  return out.save({ useObjectStreams: true });
}
