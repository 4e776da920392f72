import { createHash, createPrivateKey, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { Signer } from '@signpdf/utils';

// The CMS of a PAdES baseline B-B signature (ETSI EN 319 142-1, 319 122-1), built with PKI.js: detached
// SignedData over the PDF's byte range, SHA-256, signed attributes content-type, message-digest and
// signing-certificate-v2 (which binds the signer's certificate), no signing-time attribute (PAdES puts
// the time in the signature dictionary's /M). The certificate chain travels in the CMS. With a
// time-stamp authority, the signature-time-stamp-token unsigned attribute makes it B-T.

const OID = {
  data: '1.2.840.113549.1.7.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signedData: '1.2.840.113549.1.7.2',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
} as const;

export interface SigningIdentity {
  /** DER, the signer's certificate first */
  chain: Buffer[];
  /** PKCS#8 DER of an RSA or EC (P-256, P-384, P-521) key */
  pkcs8: Buffer;
}

const ab = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** ESSCertIDv2 of the signer (hash algorithm: the SHA-256 default, so omitted) with its issuer and serial. */
function signingCertificateV2(signer: pkijs.Certificate, der: Buffer): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: signer.issuer })] }).toSchema(),
      signer.serialNumber,
    ],
  });
  const certId = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: ab(createHash('sha256').update(der).digest()) }), issuerSerial],
  });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [certId] })] });
}

/** What stays the same from one signature to the next: parsed once per signer, not per file. */
interface Prepared {
  certs: pkijs.Certificate[];
  certV2: asn1js.Sequence;
  key: Promise<webcrypto.CryptoKey>;
}

function prepare(identity: SigningIdentity): Prepared {
  const certs = identity.chain.map((der) => pkijs.Certificate.fromBER(ab(der)));
  const kind = createPrivateKey({ key: identity.pkcs8, format: 'der', type: 'pkcs8' });
  const curve = kind.asymmetricKeyDetails?.namedCurve;
  const algorithm =
    kind.asymmetricKeyType === 'ec'
      ? { name: 'ECDSA', namedCurve: curve === 'secp384r1' ? 'P-384' : curve === 'secp521r1' ? 'P-521' : 'P-256' }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const key = webcrypto.subtle.importKey('pkcs8', identity.pkcs8, algorithm, false, ['sign']) as Promise<webcrypto.CryptoKey>;
  // an unhandled rejection here would outlive the signer; sign() awaits it and reports it
  key.catch(() => undefined);
  return { certs, certV2: signingCertificateV2(certs[0], identity.chain[0]), key };
}

const engine = () =>
  new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as pkijs.ICryptoEngine['crypto'] });

/** A detached CMS SignedData (DER) over `content`, with a time-stamp token when `stamp` is given. */
async function cmsSignature(
  p: Prepared,
  content: Buffer,
  stamp: ((signatureValue: Uint8Array) => Promise<pkijs.ContentInfo>) | undefined,
): Promise<Buffer> {
  const signer = p.certs[0];
  const digest = createHash('sha256').update(content).digest();
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
            new pkijs.Attribute({
              type: OID.messageDigest,
              values: [new asn1js.OctetString({ valueHex: ab(digest) })],
            }),
            new pkijs.Attribute({ type: OID.signingCertificateV2, values: [p.certV2] }),
          ],
        }),
      }),
    ],
    certificates: p.certs,
  });
  const key = await p.key;
  await signedData.sign(key as unknown as Parameters<pkijs.SignedData['sign']>[0], 0, 'SHA-256', undefined, engine());
  if (stamp) {
    // B-T: the token covers the signature value, so it is asked for once the value exists
    const info = signedData.signerInfos[0];
    const token = await stamp(info.signature.valueBlock.valueHexView);
    info.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [token.toSchema()] })],
    });
  }
  const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return Buffer.from(info.toSchema().toBER(false));
}

/** @signpdf/signpdf's signer: the byte range's content in, the CMS out. */
export class PadesSigner extends Signer {
  private readonly prepared: Prepared;

  /** `stamp`: the time-stamp authority's token over a signature value (PAdES B-T); absent: B-B */
  constructor(
    identity: SigningIdentity,
    private readonly stamp?: (signatureValue: Uint8Array) => Promise<pkijs.ContentInfo>,
  ) {
    super();
    this.prepared = prepare(identity);
  }

  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return cmsSignature(this.prepared, pdfBuffer, this.stamp);
  }
}
