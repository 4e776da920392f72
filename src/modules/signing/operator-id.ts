// The id the operator's certificate (SIGNING_P12_FILE) is listed under, that `options.sign` may name and
// that renders and batches signed with it record. Fixed, so work accepted before the operator renews the
// file is signed with the renewed one.
export const OPERATOR_CERTIFICATE_ID = 'crt_operator';

export function isOperatorCertificateId(id: string): boolean {
  return id === OPERATOR_CERTIFICATE_ID;
}
