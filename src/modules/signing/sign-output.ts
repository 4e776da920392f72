import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { DigestSigner, Deps } from '../../deps.js';
import type { FontLibrary } from '../../pdf/fonts/font-library.js';
import { PdfEngineError, type Rect } from '../../pdf/types.js';
import { addSignatureSlot, type SignatureSlot } from '../../pdf/seal/signature-placeholder.js';
import { byteRangeDigest, embedSignature } from '../../pdf/seal/byte-range.js';
import { openSecret } from '../webhooks/secret-box.js';
import { findCertificate, type CertificateRow } from './certificate-records.js';
import { PadesSigner } from './cms-signature.js';
import { timeStampToken } from './time-stamp.js';
import { OPERATOR_CERTIFICATE_ID } from './operator-id.js';

/**
 * Room for a time-stamp token on top of the CMS: the token carries the authority's own certificates (a
 * public TSA's chain of three is ~5 KiB; its signed TSTInfo and attributes under 1 KiB).
 */
const TOKEN_BYTES = 16_384;

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
  return signerFromPem(row.certificates, keyPem);
}

/** A signer from PEM: the certificate chain (the signer's first) and its PKCS#8 key. */
export function signerFromPem(certificatesPem: string, privateKeyPem: string): PadesSigner {
  const chain = (certificatesPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (pem) => new X509Certificate(pem).raw,
  );
  const pkcs8 = createPrivateKey(privateKeyPem).export({ type: 'pkcs8', format: 'der' });
  return new PadesSigner({ chain, pkcs8 });
}

/**
 * The account's certificate `certificateId` (or the operator's, `crt_operator`), ready to sign; an
 * account's key is opened once per process, the operator's was at start-up.
 */
async function accountSigner(
  deps: Pick<Deps, 'db' | 'signingKey' | 'caches' | 'operatorCertificate'>,
  accountId: string,
  certificateId: string,
): Promise<{ signer: DigestSigner; subject: string }> {
  if (certificateId === OPERATOR_CERTIFICATE_ID) {
    const operator = deps.operatorCertificate;
    // accepted under an operator certificate this server was started without (SIGNING_P12_FILE removed)
    if (!operator)
      throw new PdfEngineError('RENDER_FAILED', "the operator's signing certificate is no longer configured");
    return operator;
  }
  const row = await findCertificate(deps.db, accountId, certificateId);
  if (!row) throw new PdfEngineError('RENDER_FAILED', `the signing certificate ${certificateId} was deleted`);
  const signer = deps.caches.signers.remember(`${row.id}:${row.fingerprint}`, () => signerOf(deps.signingKey, row));
  return { signer, subject: row.subject };
}

/** The file signed (PAdES B-B, or B-T when the operator set TSA_URL) with the account's certificate `certificateId`, as its last revision. */
export async function signOutput(
  deps: Pick<Deps, 'db' | 'clock' | 'signingKey' | 'config' | 'caches' | 'operatorCertificate'>,
  accountId: string,
  certificateId: string,
  bytes: Uint8Array,
  field?: SignatureField,
): Promise<Uint8Array> {
  const { signer, subject } = await accountSigner(deps, accountId, certificateId);
  const { url, timeoutMs } = deps.config.timestamp;
  return signBytes(bytes, signer, {
    subject,
    now: deps.clock.now(),
    field,
    timestamp: url ? { url, timeoutMs } : undefined,
    fonts: await deps.caches.fonts(),
  });
}

/**
 * A signature made apart from the file it goes into (a combined file, built in a worker): `slot` is what
 * its signature dictionary says and reserves, `cms` the CMS over the digest of the byte range the
 * builder filled. The key never leaves this process; the file never comes into it.
 */
export interface DetachedSigning {
  slot: SignatureSlot;
  cms(digest: Buffer): Promise<Buffer>;
}

/** DetachedSigning with the account's certificate, B-T when the operator set TSA_URL. */
export async function accountDetachedSigning(
  deps: Pick<Deps, 'db' | 'clock' | 'signingKey' | 'config' | 'caches' | 'operatorCertificate'>,
  accountId: string,
  certificateId: string,
): Promise<DetachedSigning> {
  const { signer, subject } = await accountSigner(deps, accountId, certificateId);
  const { url, timeoutMs } = deps.config.timestamp;
  return detachedSigning(signer, { subject, now: deps.clock.now(), timestamp: url ? { url, timeoutMs } : undefined });
}

interface SigningOptions {
  subject: string;
  now: Date;
  timestamp?: { url: string; timeoutMs: number };
}

/** An invisible signature's slot and its CMS, for a file signed elsewhere (see DetachedSigning). */
export function detachedSigning(signer: DigestSigner, o: SigningOptions): DetachedSigning {
  return { slot: slotOf(signer, o), cms: (digest) => cmsOf(signer, digest, o.timestamp) };
}

function slotOf(signer: DigestSigner, o: SigningOptions): SignatureSlot {
  return {
    reason: REASON,
    location: 'formcast',
    name: o.subject,
    signingTime: o.now,
    // sized from the certificate chain: every byte reserved is written twice (hex) into every signed file
    contentsBytes: signer.maxCmsBytes + (o.timestamp ? TOKEN_BYTES : 0),
  };
}

function cmsOf(signer: DigestSigner, digest: Buffer, tsa: SigningOptions['timestamp']): Promise<Buffer> {
  const stamp = tsa && ((value: Uint8Array) => timeStampToken(tsa, value));
  return signer.signDigest(digest, stamp);
}

/** Bytes signed as their last revision: the server's renders and the CLI's offline ones alike. */
export async function signBytes(
  bytes: Uint8Array,
  signer: DigestSigner,
  o: SigningOptions & {
    field?: SignatureField;
    /** the process's bundled fonts (parsed once), for a name in any script; a new library otherwise */
    fonts?: FontLibrary;
  },
): Promise<Uint8Array> {
  const { field, now } = o;
  const slot = await addSignatureSlot(
    bytes,
    {
      ...slotOf(signer, o),
      visible: field && {
        fieldName: field.name,
        page: field.page,
        rect: field.rect,
        lines: [`Digitally signed by ${commonName(o.subject)}`, `Date: ${shownTime(now)}`, `Reason: ${REASON}`],
      },
    },
    o.fonts,
  );
  return embedSignature(slot, await cmsOf(signer, byteRangeDigest(slot), o.timestamp));
}
