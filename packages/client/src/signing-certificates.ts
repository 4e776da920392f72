import type { Context } from './context.js';
import { unwrap } from './transport.js';
import type { SigningCertificate, SigningCertificateUpload } from './types.js';

/** A PKCS#12 file as bytes (read from disk, a Blob's bytes) or already base64. */
export type Pkcs12Input = Uint8Array | ArrayBuffer | string;

function base64Of(input: Pkcs12Input): string {
  if (typeof input === 'string') return input;
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  let binary = '';
  // in slices: String.fromCharCode takes its arguments on the stack
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** client.signingCertificates: the certificates `options.sign` signs with (the key never comes back). */
export function signingCertificatesApi({ raw }: Context) {
  return {
    /** Stores a PKCS#12 (RSA or EC key and its certificate); the first one becomes the default. */
    create: (
      pkcs12: Pkcs12Input,
      password: string,
      options: Omit<SigningCertificateUpload, 'pkcs12' | 'password'> = {},
    ): Promise<SigningCertificate> =>
      unwrap(raw.POST('/v1/signing-certificates', { body: { ...options, pkcs12: base64Of(pkcs12), password } })).then(
        (r) => r.data,
      ),
    /** Every certificate of the account, newest first; then the operator's (`owner: 'operator'`, id `crt_operator`), if the server has one. */
    list: (): Promise<SigningCertificate[]> => unwrap(raw.GET('/v1/signing-certificates')).then((r) => r.data),
    /** The operator's certificate cannot be deleted: a FormcastError with code CONFLICT. */
    delete: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/signing-certificates/{id}', { params: { path: { id } } })).then(() => undefined),
  };
}
