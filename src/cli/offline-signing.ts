// `formcast render|batch --sign cert.p12`: the server's signing code on a local PKCS#12. A module of its
// own, imported only by a command that signs, so a plain render does not load PKI.js and node-forge.
import { readFile } from 'node:fs/promises';
import { signatureFieldOf } from '../modules/renders/seal-output.js';
import { readPkcs12 } from '../modules/signing/pkcs12.js';
import { hasBegun } from '../modules/signing/validity.js';
import { detachedSigning, signBytes, signerFromPem, type DetachedSigning } from '../modules/signing/sign-output.js';
import type { FontLibrary } from '../pdf/fonts/font-library.js';
import type { TemplateAnalysis } from '../pdf/types.js';
import { CliError } from './fail.js';

/** Deadline of the --tsa request, as the server's TSA_TIMEOUT_MS default. */
const TSA_TIMEOUT_MS = 10_000;

export interface SigningFlags {
  sign?: string;
  'sign-password'?: string;
  tsa?: string;
}

export interface OfflineSigner {
  subject: string;
  sign(
    bytes: Uint8Array,
    analysis: Pick<TemplateAnalysis, 'fields'>,
    values: Record<string, unknown>,
    /** the render's font library (a signer's name in any script is drawn with the fonts it parsed) */
    fonts?: FontLibrary,
  ): Promise<Uint8Array>;
  /** an invisible signature for a file built elsewhere: a batch's combined file (combine-files.ts) */
  detached(): DetachedSigning;
}

/** The .p12's signer, read before anything is filled so a bad certificate costs nothing. */
export async function offlineSigner(flags: SigningFlags & { sign: string }): Promise<OfflineSigner> {
  const password = flags['sign-password'] ?? process.env.FORMCAST_SIGN_PASSWORD ?? '';
  const material = readPkcs12(await readFile(flags.sign), password);
  const now = new Date();
  if (!hasBegun(material.notBefore, now) || material.notAfter <= now)
    throw new CliError(
      `${flags.sign}: the certificate is valid from ${material.notBefore.toISOString()} to ${material.notAfter.toISOString()}, not now`,
    );
  const tsa = flags.tsa;
  if (tsa !== undefined && !/^https?:\/\/[^/]/i.test(tsa))
    throw new CliError(`--tsa must be an http(s) URL (got "${tsa}")`);
  const signer = signerFromPem(material.certificatesPem, material.privateKeyPem);
  const timestamp = tsa ? { url: tsa, timeoutMs: TSA_TIMEOUT_MS } : undefined;
  return {
    subject: material.subject,
    sign: (bytes, analysis, values, fonts) =>
      signBytes(bytes, signer, {
        fonts,
        subject: material.subject,
        now: new Date(),
        field: signatureFieldOf(analysis, values),
        timestamp,
      }),
    detached: () => detachedSigning(signer, { subject: material.subject, now: new Date(), timestamp }),
  };
}
