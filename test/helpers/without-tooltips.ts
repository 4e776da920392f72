// A copy of a PDF with every tooltip (/TU) removed, so that the page caption finder can be measured
// against what the form's authors wrote, which it never saw.
import { PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';

export async function withoutTooltips(bytes: Uint8Array): Promise<{ bytes: Uint8Array; removed: number }> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true });
  let removed = 0;
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    if (obj instanceof PDFDict && obj.has(PDFName.of('TU'))) {
      obj.delete(PDFName.of('TU'));
      removed++;
    }
  }
  return { bytes: await doc.save({ useObjectStreams: false }), removed };
}
