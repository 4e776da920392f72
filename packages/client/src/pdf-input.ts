/** A PDF to upload: bytes, or a Blob/File (a File's name is the default file name). */
export type PdfInput = Uint8Array | ArrayBuffer | Blob;

/** The PDF as a Blob for a multipart part. */
export function toBlob(file: PdfInput): Blob {
  if (file instanceof Blob) return file;
  return new Blob([file instanceof Uint8Array ? new Uint8Array(file) : file], { type: 'application/pdf' });
}
