// Readies a loaded document for a full save as one plain revision: unencrypted (its objects were
// decrypted in memory when it was opened) and without the cross-reference and object streams of its
// old revisions, which describe the old file, not the new one (pdf-lib keeps all but the last XRef
// stream; an old one with /Encrypt would make the saved file look encrypted when parsed again).
import { PDFInvalidObject, PDFStream, type PDFContext } from '@cantoo/pdf-lib';
import { N } from '../pdf-objects.js';

/** An encrypted file's XRef streams, which are never encrypted, fail decryption and stay unparsed. */
function isXrefStream(obj: PDFInvalidObject): boolean {
  const data = (obj as unknown as { data: Uint8Array }).data;
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.length, 2048)).toString('latin1');
  const end = head.indexOf('stream');
  return /\/Type\s*\/XRef\b/.test(end > 0 ? head.slice(0, end) : head);
}

export function dropEncryptionAndXrefStreams(ctx: PDFContext): void {
  ctx.trailerInfo.Encrypt = undefined;
  (ctx as unknown as { security?: unknown }).security = undefined;
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    const type = obj instanceof PDFStream ? obj.dict.get(N('Type')) : undefined;
    if (type === N('XRef') || type === N('ObjStm') || (obj instanceof PDFInvalidObject && isXrefStream(obj)))
      ctx.delete(ref);
  }
}
