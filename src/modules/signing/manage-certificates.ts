import type { Deps, OperatorCertificate } from '../../deps.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { sealSecret } from '../webhooks/secret-box.js';
import {
  countCertificates,
  deleteCertificateRow,
  findDefaultCertificate,
  insertCertificate,
  listCertificateRows,
  setDefaultCertificate,
  type CertificateRow,
} from './certificate-records.js';
import { isOperatorCertificateId, OPERATOR_CERTIFICATE_ID } from './operator-id.js';
import { hasBegun } from './validity.js';

// POST/GET/DELETE /signing-certificates. The private key is sealed at rest as webhook secrets are
// (AES-256-GCM under a key derived from SIGNING_SECRET) and never leaves the server again.

/** An account keeps at most this many (a few are needed: one current, one being rolled over). */
const MAX_CERTIFICATES = 10;

function toCertificateView(row: CertificateRow) {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    issuer: row.issuer,
    serialNumber: row.serial_number,
    notBefore: row.not_before,
    notAfter: row.not_after,
    fingerprint: row.fingerprint,
    isDefault: row.is_default === 1,
    owner: 'account' as const,
    createdAt: row.created_at,
  };
}

/** The operator's certificate as every account sees it: read-only, the default of an account without one. */
function operatorView(cert: OperatorCertificate, isDefault: boolean) {
  return {
    id: OPERATOR_CERTIFICATE_ID,
    name: "Operator's certificate",
    subject: cert.subject,
    issuer: cert.issuer,
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    fingerprint: cert.fingerprint,
    isDefault,
    owner: 'operator' as const,
    createdAt: cert.loadedAt.toISOString(),
  };
}

export async function createCertificate(
  deps: Pick<Deps, 'db' | 'clock' | 'signingKey'>,
  accountId: string,
  input: { name?: string; pkcs12: string; password: string; default?: boolean },
) {
  const der = Buffer.from(input.pkcs12, 'base64');
  if (
    der.length === 0 ||
    der.toString('base64').replace(/=+$/, '') !== input.pkcs12.replace(/\s/g, '').replace(/=+$/, '')
  )
    throw validationError({ field: 'pkcs12', expected: 'a PKCS#12 file, base64', received: 'not base64' });
  // node-forge (~7 MB RSS) loads with the first certificate an account uploads, not with the server
  const { readPkcs12 } = await import('./pkcs12.js');
  const material = readPkcs12(der, input.password);
  const now = deps.clock.now();
  if (!hasBegun(material.notBefore, now))
    throw validationError(
      {
        field: 'pkcs12',
        expected: 'a certificate valid today',
        received: `valid from ${material.notBefore.toISOString()}`,
      },
      `The certificate is not valid yet: its validity starts ${material.notBefore.toISOString()}`,
    );
  if (material.notAfter <= now)
    throw validationError(
      {
        field: 'pkcs12',
        expected: 'a certificate valid today',
        received: `expired ${material.notAfter.toISOString()}`,
      },
      `The certificate expired on ${material.notAfter.toISOString()}`,
    );
  const id = newId('crt');
  const row: CertificateRow = {
    id,
    account_id: accountId,
    name: input.name ?? material.subject,
    subject: material.subject,
    issuer: material.issuer,
    serial_number: material.serialNumber,
    not_before: material.notBefore.toISOString(),
    not_after: material.notAfter.toISOString(),
    fingerprint: material.fingerprint,
    certificates: material.certificatesPem,
    private_key: sealSecret(deps.signingKey, material.privateKeyPem),
    is_default: 0,
    created_at: now.toISOString(),
  };
  await deps.db.transaction().execute(async (trx) => {
    if ((await countCertificates(trx, accountId)) >= MAX_CERTIFICATES)
      throw new AppError(
        'CONFLICT',
        `An account keeps at most ${MAX_CERTIFICATES} signing certificates: delete one first`,
      );
    await insertCertificate(trx, row);
    // the first one, or one asked to be, becomes what options.sign: true uses
    if (input.default === true || !(await findDefaultCertificate(trx, accountId)))
      await setDefaultCertificate(trx, accountId, id);
  });
  const stored = (await listCertificateRows(deps.db, accountId)).find((r) => r.id === id)!;
  return toCertificateView(stored);
}

/** The account's own certificates, newest first, then the operator's (when the server has one). */
export async function listCertificates(deps: Pick<Deps, 'db' | 'operatorCertificate'>, accountId: string) {
  const rows = await listCertificateRows(deps.db, accountId);
  const own = rows.map(toCertificateView);
  const operator = deps.operatorCertificate;
  return operator ? [...own, operatorView(operator, !rows.some((r) => r.is_default === 1))] : own;
}

/**
 * Deletes one of the account's certificates; when it was the default, the newest left becomes it, so an
 * account that keeps certificates of its own never signs `options.sign: true` with the operator's.
 */
export async function deleteCertificate(
  deps: Pick<Deps, 'db' | 'operatorCertificate'>,
  accountId: string,
  id: string,
): Promise<void> {
  if (isOperatorCertificateId(id) && deps.operatorCertificate)
    throw new AppError(
      'CONFLICT',
      "crt_operator is the operator's signing certificate, offered to every account: an account cannot delete it. Upload a certificate of your own (POST /v1/signing-certificates): options.sign: true then uses yours",
    );
  await deps.db.transaction().execute(async (trx) => {
    const wasDefault = (await findDefaultCertificate(trx, accountId))?.id === id;
    if (!(await deleteCertificateRow(trx, accountId, id))) throw notFound.signingCertificate(id);
    const next = wasDefault ? (await listCertificateRows(trx, accountId))[0] : undefined;
    if (next) await setDefaultCertificate(trx, accountId, next.id);
  });
}
