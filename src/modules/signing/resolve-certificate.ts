import type { Deps } from '../../deps.js';
import { notFound, validationError } from '../../errors.js';
import { findCertificate, findDefaultCertificate } from './certificate-records.js';
import { isOperatorCertificateId, OPERATOR_CERTIFICATE_ID } from './operator-id.js';
import { hasBegun } from './validity.js';

/**
 * The certificate `options.sign` names, valid now; else a clear error. `true`: the account's default,
 * else the operator's (SIGNING_P12_FILE); an id: the account's own, or `crt_operator` (the operator's, as
 * listed). An id of the account never falls back to the operator's: a deleted one is not found.
 */
export async function resolveSigningCertificate(
  deps: Pick<Deps, 'db' | 'clock' | 'operatorCertificate'>,
  accountId: string,
  sign: true | string,
): Promise<{ id: string }> {
  const operator = deps.operatorCertificate;
  const row =
    sign === true
      ? await findDefaultCertificate(deps.db, accountId)
      : isOperatorCertificateId(sign)
        ? undefined
        : await findCertificate(deps.db, accountId, sign);
  if (row) {
    checkValidToday(deps, row.not_before, row.not_after, `the signing certificate ${row.id}`);
    return row;
  }
  if (operator && (sign === true || isOperatorCertificateId(sign))) {
    checkValidToday(
      deps,
      operator.notBefore.toISOString(),
      operator.notAfter.toISOString(),
      "the operator's signing certificate (crt_operator)",
      '; upload one of your own with POST /v1/signing-certificates, or ask the operator to renew it',
    );
    return { id: OPERATOR_CERTIFICATE_ID };
  }
  if (sign === true)
    throw validationError(
      { field: 'options.sign', expected: 'an account with a signing certificate', received: 'true' },
      'options.sign: this account has no signing certificate; upload one with POST /v1/signing-certificates',
    );
  throw notFound.signingCertificate(sign);
}

function checkValidToday(
  deps: Pick<Deps, 'clock'>,
  notBefore: string,
  notAfter: string,
  what: string,
  advice = '',
): void {
  const now = deps.clock.now();
  if (notAfter <= now.toISOString() || !hasBegun(new Date(notBefore), now))
    throw validationError(
      { field: 'options.sign', expected: 'a certificate valid today', received: `valid ${notBefore} to ${notAfter}` },
      `options.sign: ${what} is not valid today (valid ${notBefore} to ${notAfter})${advice}`,
    );
}
