import { createHash, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { validationError } from '../../errors.js';

// A PKCS#12 upload read with node-forge (OpenSSL 3's default PBES2/AES-256 and SHA-256 MAC included):
// exactly one RSA private key, the certificate it belongs to first, the rest of the chain after it.
// Every refusal is a VALIDATION_ERROR on `pkcs12` or `password` that says what is wrong.

export interface SigningMaterial {
  /** the signer's certificate first, PEM */
  certificatesPem: string;
  /** PKCS#8 PEM */
  privateKeyPem: string;
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the signer certificate's DER, hex */
  fingerprint: string;
}

const bad = (field: string, expected: string, received: string, message: string) =>
  validationError({ field, expected, received }, message);

export function readPkcs12(der: Buffer, password: string): SigningMaterial {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))),
      false,
      password,
    );
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (/MAC could not be verified|Invalid password|decrypt/i.test(msg))
      throw bad('password', 'the PKCS#12 password', 'a wrong password', 'The PKCS#12 password is wrong');
    throw bad(
      'pkcs12',
      'a PKCS#12 (.p12 / .pfx) file, base64',
      'something else',
      `The file is not a readable PKCS#12 (${msg.slice(0, 120)})`,
    );
  }
  const keyBags = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  if (keyBags.length === 0)
    throw bad(
      'pkcs12',
      'a certificate with its private key',
      'no private key',
      'The PKCS#12 holds no private key: export it with the key',
    );
  const key = keyBags[0].key as forge.pki.rsa.PrivateKey | undefined;
  if (!key || keyBags.length > 1)
    throw bad(
      'pkcs12',
      'one RSA private key',
      keyBags.length > 1 ? 'several keys' : 'a key of another kind',
      'The PKCS#12 must hold exactly one RSA private key',
    );
  const certs = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [])
    .map((b) => b.cert)
    .filter((c): c is forge.pki.Certificate => c !== undefined && c !== null);
  // the certificate of this key: same modulus
  const signer = certs.find((c) => (c.publicKey as forge.pki.rsa.PublicKey).n?.equals(key.n));
  if (!signer)
    throw bad(
      'pkcs12',
      'the certificate of the private key',
      'no matching certificate',
      'The PKCS#12 holds no certificate for its private key',
    );
  const ordered = [signer, ...certs.filter((c) => c !== signer)];
  const certificatesPem = ordered.map((c) => forge.pki.certificateToPem(c)).join('');
  const x509 = new X509Certificate(forge.pki.certificateToPem(signer));
  return {
    certificatesPem,
    privateKeyPem: forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key))),
    subject: x509.subject.replace(/\n/g, ', '),
    issuer: x509.issuer.replace(/\n/g, ', '),
    serialNumber: x509.serialNumber,
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
    fingerprint: createHash('sha256').update(x509.raw).digest('hex'),
  };
}
