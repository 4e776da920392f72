import { createHash, createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import type { CertificateFacts } from '../../deps.js';
import { validationError } from '../../errors.js';

// A PKCS#12 upload read with node-forge (OpenSSL 3's default PBES2/AES-256 and SHA-256 MAC included):
// exactly one RSA or EC private key, the certificate it belongs to first, the rest of the chain after it.
// Every refusal is a VALIDATION_ERROR on `pkcs12` or `password` that says what is wrong.

export interface SigningMaterial extends CertificateFacts {
  /** the signer's certificate first, PEM */
  certificatesPem: string;
  /** PKCS#8 PEM */
  privateKeyPem: string;
}

/** The curves PAdES verifiers (poppler/NSS, OpenSSL, Acrobat) all accept. */
const EC_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

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
  // forge reads RSA keys and certificates itself; an EC one it leaves as ASN.1, which Node reads
  const bag = keyBags[0];
  const keyDer = bag.key
    ? forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key))).getBytes()
    : bag.asn1 && forge.asn1.toDer(bag.asn1).getBytes();
  let key: KeyObject | undefined;
  try {
    if (keyDer) key = createPrivateKey({ key: Buffer.from(keyDer, 'binary'), format: 'der', type: 'pkcs8' });
  } catch {
    key = undefined;
  }
  const curve = key?.asymmetricKeyDetails?.namedCurve;
  const usable = key?.asymmetricKeyType === 'rsa' || (key?.asymmetricKeyType === 'ec' && EC_CURVES.has(curve ?? ''));
  if (!key || !usable || keyBags.length > 1)
    throw bad(
      'pkcs12',
      'one RSA or EC (P-256, P-384, P-521) private key',
      keyBags.length > 1
        ? 'several keys'
        : `a key of another kind (${key?.asymmetricKeyType ?? 'unreadable'}${curve ? ` ${curve}` : ''})`,
      'The PKCS#12 must hold exactly one RSA or EC (P-256, P-384, P-521) private key',
    );
  const certs = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [])
    .map((b) => {
      // forge parses RSA certificates; any other kind it leaves as ASN.1
      const asn1 = b.cert ? forge.pki.certificateToAsn1(b.cert) : b.asn1;
      return asn1 && certificateOf(Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'));
    })
    .filter((c): c is X509Certificate => c !== undefined);
  // the certificate of this key
  const signer = certs.find((c) => c.checkPrivateKey(key));
  if (!signer)
    throw bad(
      'pkcs12',
      'the certificate of the private key',
      'no matching certificate',
      'The PKCS#12 holds no certificate for its private key',
    );
  const ordered = [signer, ...certs.filter((c) => c !== signer)];
  return {
    certificatesPem: ordered.map((c) => c.toString()).join(''),
    privateKeyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    subject: signer.subject.replace(/\n/g, ', '),
    issuer: signer.issuer.replace(/\n/g, ', '),
    serialNumber: signer.serialNumber,
    notBefore: new Date(signer.validFrom),
    notAfter: new Date(signer.validTo),
    fingerprint: createHash('sha256').update(signer.raw).digest('hex'),
  };
}

/** A certificate bag's X.509, or nothing when it holds something else. */
function certificateOf(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}
