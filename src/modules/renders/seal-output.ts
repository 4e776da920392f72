import { createHash, type Hash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { validationError } from '../../errors.js';
import type { ProtectOptions } from '../../pdf/seal/protect.js';
import { resolveSigningCertificate } from '../signing/resolve-certificate.js';
import type { SignatureField } from '../signing/sign-output.js';
import type { TemplateAnalysis } from '../../pdf/types.js';

// After the engine: what seals a render's file. Signing comes last, as the file's last revision;
// every file gets its SHA-256, which POST /renders/verify looks up. Protection and signing load with the
// first render that asks for them: they bring pdf-lib, PKI.js and asn1js (~35 MB RSS) into the server
// process, which renders without them otherwise (docs/performance.md, Session 10).

export interface SealRequest {
  protect?: ProtectOptions;
  /** the signing certificate's id (resolved when the render was accepted) */
  signWith?: string;
  /** the template's signature field the signature shows in; absent: an invisible signature */
  signatureField?: SignatureField;
}

export interface SealedFile {
  file: readonly Uint8Array[];
  sha256: string;
  protected: boolean;
  signedWith: string | null;
}

/**
 * Checks `options.protect` / `options.sign` before anything is charged: the certificate exists, is this
 * account's (or the operator's) and valid today; protection only where its passwords need not be stored (synchronous
 * renders); never both (see docs/decisions.md: an encrypted file's signature readers do not agree on).
 */
export async function checkSealOptions(
  deps: Pick<Deps, 'db' | 'clock' | 'operatorCertificate'>,
  accountId: string,
  options: { protect?: ProtectOptions; sign?: boolean | string },
  mayProtect: boolean,
): Promise<SealRequest> {
  const { protect, sign } = options;
  if (protect && sign !== undefined && sign !== false)
    throw validationError(
      { field: 'options.protect', expected: 'protect or sign, not both', received: 'both' },
      'options.protect and options.sign cannot be combined: a signature inside an encrypted file is not verified alike by readers (pdfsig and others disagree); sign, or protect',
    );
  if (protect && !mayProtect)
    throw validationError(
      { field: 'options.protect', expected: 'a synchronous render', received: 'an async render or batch item' },
      'options.protect is only for synchronous renders: an async render or batch item would have to store its passwords, which are never stored',
    );
  if (sign === undefined || sign === false) return { protect };
  const cert = await resolveSigningCertificate(deps, accountId, sign);
  return { signWith: cert.id };
}

/**
 * Where a visible signature goes: the template's first signature field (in the form's order) that is
 * not read-only and that this render left empty; a field the data filled (an image or typed name) keeps
 * what it was given and the signature stays invisible.
 */
export function signatureFieldOf(
  analysis: Pick<TemplateAnalysis, 'fields'>,
  values: Record<string, unknown>,
): SignatureField | undefined {
  const f = analysis.fields.find(
    (x) =>
      x.type === 'signature' &&
      !x.pdfMeta.readOnly &&
      x.pdfMeta.rect !== undefined &&
      values[x.pdfMeta.originalName] === undefined,
  );
  return f?.pdfMeta.rect && { name: f.pdfMeta.originalName, page: f.pdfMeta.page, rect: f.pdfMeta.rect };
}

/**
 * The file's SHA-256. With `prefixes`, the first of several chunks is hashed once per chunk object and
 * its state copied afterwards: a pool engine answers every render of a template version with the same
 * base file object (most of the bytes, never changed once received) and the render's own part after it.
 */
export function sha256Of(file: readonly Uint8Array[], prefixes?: WeakMap<Uint8Array, Hash>): string {
  const [first, ...rest] = file;
  let h: Hash;
  if (prefixes && first && rest.length) {
    let prefix = prefixes.get(first);
    if (!prefix) prefixes.set(first, (prefix = createHash('sha256').update(first)));
    h = prefix.copy();
  } else {
    h = createHash('sha256');
    if (first) h.update(first);
  }
  for (const chunk of rest) h.update(chunk);
  return h.digest('hex');
}

export async function sealOutput(
  deps: Pick<Deps, 'db' | 'clock' | 'signingKey' | 'config' | 'caches' | 'operatorCertificate'>,
  accountId: string,
  seal: SealRequest,
  file: readonly Uint8Array[],
): Promise<SealedFile> {
  let out = file;
  if (seal.protect) {
    const { protectPdf } = await import('../../pdf/seal/protect.js');
    out = [await protectPdf(Buffer.concat(out), seal.protect)];
  }
  if (seal.signWith) {
    const { signOutput } = await import('../signing/sign-output.js');
    out = [await signOutput(deps, accountId, seal.signWith, Buffer.concat(out), seal.signatureField)];
  }
  return {
    file: out,
    sha256: sha256Of(out, deps.caches.baseDigests), // a sealed file is one new chunk: nothing shared
    protected: seal.protect !== undefined,
    signedWith: seal.signWith ?? null,
  };
}

/** The render record's columns for a sealed file. */
export function sealedColumns(s: SealedFile) {
  return { sha256: s.sha256, protected: s.protected ? 1 : 0, signed_with: s.signedWith };
}
