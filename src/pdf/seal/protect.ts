// Password protection of a finished output: the whole file re-saved encrypted with AES-256 (/V 5 /R 6,
// ISO 32000-2), by @cantoo/pdf-lib's own security handler (docs/decisions.md, "Sealed outputs").
import { loadPdf } from '../load.js';
import { dropEncryptionAndXrefStreams } from '../writer/plain-objects.js';
import { PdfEngineError } from '../types.js';

export interface Permissions {
  print: boolean;
  copy: boolean;
  modify: boolean;
  annotate: boolean;
  fillForms: boolean;
}

export interface ProtectOptions {
  /** asked to open the file; absent: anyone opens it, the permissions still apply */
  userPassword?: string;
  /** lifts the permissions */
  ownerPassword: string;
  permissions: Permissions;
}

/** The file encrypted with AES-256 and `o`'s permissions, as one plain revision. */
export async function protectPdf(bytes: Uint8Array, o: ProtectOptions, maxBytes?: number): Promise<Uint8Array> {
  const { doc, context } = await loadPdf(bytes, { maxBytes });
  try {
    dropEncryptionAndXrefStreams(context);
    doc.encrypt({
      algorithm: 'AES-256',
      userPassword: o.userPassword ?? '',
      ownerPassword: o.ownerPassword,
      permissions: {
        printing: o.permissions.print ? 'highResolution' : false,
        copying: o.permissions.copy,
        // accessibility extraction stays allowed (ISO 32000-2 asks readers to ignore the bit anyway)
        contentAccessibility: true,
        modifying: o.permissions.modify,
        documentAssembly: o.permissions.modify,
        annotating: o.permissions.annotate,
        fillingForms: o.permissions.fillForms,
      },
    });
    return await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new PdfEngineError('INVALID_PDF', `the output could not be encrypted (${msg.slice(0, 200)})`);
  }
}
