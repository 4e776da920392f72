import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { PdfEngineError, type Rect } from '../../pdf/types.js';
import { addSignatureSlot } from '../../pdf/seal/signature-placeholder.js';
import { byteRangeDigest, embedSignature } from '../../pdf/seal/byte-range.js';
import { openSecret } from '../webhooks/secret-box.js';
import { findCertificate, type CertificateRow } from './certificate-records.js';
import { PadesSigner } from './cms-signature.js';
import { timeStampToken } from './time-stamp.js';

/** Room for the CMS: an RSA-4096 signature and a chain of a few certificates fit in 16 KiB. */
const CONTENTS_BYTES = 16_384;
/** With a time-stamp token, which carries the authority's own chain: as much again. */
const CONTENTS_BYTES_STAMPED = 32_768;

/** A template's signature field, where a visible signature goes. */
export interface SignatureField {
  name: string;
  /** 1-based */
  page: number;
  rect: Rect;
}

const REASON = 'Document issued by formcast';

/** The signer's common name, else the whole subject. */
function commonName(subject: string): string {
  return /(?:^|,\s*)CN=([^,]+)/.exec(subject)?.[1]?.trim() ?? subject;
}

/** "2026-11-26 08:30 UTC": what the appearance says; the exact time is the signature's /M. */
function shownTime(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The certificate's sealed key opened and its chain parsed, ready to sign. */
function signerOf(signingKey: Buffer, row: CertificateRow): PadesSigner {
  const keyPem = openSecret(signingKey, row.private_key);
  // sealed under another SIGNING_SECRET: never sign with something else, say so
  if (!keyPem)
    throw new PdfEngineError(
      'RENDER_FAILED',
      `the signing certificate ${row.id} cannot be opened with this server's SIGNING_SECRET; upload it again`,
    );
  const chain = (row.certificates.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (pem) => new X509Certificate(pem).raw,
  );
  const pkcs8 = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  return new PadesSigner({ chain, pkcs8 });
}

/** The file signed (PAdES B-B, or B-T when the operator set TSA_URL) with the account's certificate `certificateId`, as its last revision. */
export async function signOutput(
  deps: Pick<Deps, 'db' | 'clock' | 'signingKey' | 'config' | 'caches'>,
  accountId: string,
  certificateId: string,
  bytes: Uint8Array,
  field?: SignatureField,
): Promise<Uint8Array> {
  const row = await findCertificate(deps.db, accountId, certificateId);
  if (!row) throw new PdfEngineError('RENDER_FAILED', `the signing certificate ${certificateId} was deleted`);
  const signer = deps.caches.signers.remember(`${row.id}:${row.fingerprint}`, () => signerOf(deps.signingKey, row));
  const { url, timeoutMs } = deps.config.timestamp;
  const tsa = url ? { url, timeoutMs } : undefined;
  const now = deps.clock.now();
  const slot = await addSignatureSlot(bytes, {
    reason: REASON,
    location: 'formcast',
    name: row.subject,
    signingTime: now,
    visible: field && {
      fieldName: field.name,
      page: field.page,
      rect: field.rect,
      lines: [`Digitally signed by ${commonName(row.subject)}`, `Date: ${shownTime(now)}`, `Reason: ${REASON}`],
    },
    contentsBytes: tsa ? CONTENTS_BYTES_STAMPED : CONTENTS_BYTES,
  });
  const stamp = tsa && ((value: Uint8Array) => timeStampToken(tsa, value));
  return embedSignature(slot, await signer.signDigest(byteRangeDigest(slot), stamp));
}
