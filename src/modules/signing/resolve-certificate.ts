import type { Deps } from '../../deps.js';
import { notFound, validationError } from '../../errors.js';
import { findCertificate, findDefaultCertificate, type CertificateRow } from './certificate-records.js';

/** The certificate `options.sign` names (true: the account's default), valid now; else a clear error. */
export async function resolveSigningCertificate(
  deps: Pick<Deps, 'db' | 'clock'>,
  accountId: string,
  sign: true | string,
): Promise<CertificateRow> {
  const row =
    sign === true ? await findDefaultCertificate(deps.db, accountId) : await findCertificate(deps.db, accountId, sign);
  if (!row && sign === true)
    throw validationError(
      { field: 'options.sign', expected: 'an account with a signing certificate', received: 'true' },
      'options.sign: this account has no signing certificate; upload one with POST /v1/signing-certificates',
    );
  if (!row) throw notFound.signingCertificate(sign as string);
  const now = deps.clock.now().toISOString();
  if (row.not_after <= now || row.not_before > now)
    throw validationError(
      {
        field: 'options.sign',
        expected: 'a certificate valid today',
        received: `valid ${row.not_before} to ${row.not_after}`,
      },
      `options.sign: the signing certificate ${row.id} is not valid today (valid ${row.not_before} to ${row.not_after})`,
    );
  return row;
}
