// A signature's CMS written into a file that was prepared for it elsewhere (a combined file, built and
// hashed in a render worker): a few KiB written in place. Apart from sign-output.ts so that the CLI's
// batch reaches it without loading PKI.js when it does not sign.
import { open } from 'node:fs/promises';
import { contentsHex } from '../../pdf/seal/byte-range.js';

/**
 * Writes `cms` into the signed file at `path`, where its byte range left room (the rest stays zero
 * padding): a few KiB written in place, the file never read.
 */
export async function embedSignatureInFile(path: string, byteRange: readonly number[], cms: Uint8Array): Promise<void> {
  const hex = Buffer.from(contentsHex(byteRange, cms), 'latin1');
  const file = await open(path, 'r+');
  try {
    await file.write(hex, 0, hex.byteLength, byteRange[1] + 1);
  } finally {
    await file.close();
  }
}
