import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

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
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

export interface SigningIdentity {
  /** DER, the signer's certificate first */
  chain: Buffer[];
  /** PKCS#8 DER of an RSA or EC (P-256, P-384, P-521) key */
  pkcs8: Buffer;
}

const ab = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/**
 * DER encoded once by asn1js and written as is wherever PKI.js places it: the certificates, the signer's
 * id and its signing-certificate attribute are the same in every signature of one signer, and
 * re-encoding them (PKI.js rebuilds a certificate from its parsed fields) was ~half of the CMS's time.
 * asn1js's own RawData cannot stand in: it ignores the writer that constructed blocks hand their children.
 */
class Encoded {
  constructor(private readonly der: ArrayBuffer) {}

  toBER(_sizeOnly?: boolean, writer?: { write(buf: ArrayBuffer): void }): ArrayBuffer {
    if (!writer) return this.der;
    writer.write(this.der);
    return new ArrayBuffer(0);
  }
}

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

/** What stays the same from one signature to the next: parsed and encoded once per signer, not per file. */
interface Prepared {
  /** the chain, as SignedData's certificates (anything with a toSchema) */
  certs: { toSchema(): Encoded }[];
  /** IssuerAndSerialNumber of the signer */
  sid: Encoded;
  certV2: Encoded;
  key: KeyObject;
  /** sha256WithRSAEncryption or ecdsa-with-SHA256 */
  signatureAlgorithm: pkijs.AlgorithmIdentifier;
}

const sha256Id = () => new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256, algorithmParams: new asn1js.Null() });

function prepare(identity: SigningIdentity): Prepared {
  const signer = pkijs.Certificate.fromBER(ab(identity.chain[0]));
  const encoded = (block: { toBER(sizeOnly?: boolean): ArrayBuffer }) => new Encoded(block.toBER(false));
  const certs = identity.chain.map((der) => {
    const raw = new Encoded(ab(der));
    return { toSchema: () => raw };
  });
  const sid = encoded(
    new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }).toSchema(),
  );
  const key = createPrivateKey({ key: identity.pkcs8, format: 'der', type: 'pkcs8' });
  const signatureAlgorithm =
    key.asymmetricKeyType === 'ec'
      ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSha256 })
      : new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRsa, algorithmParams: new asn1js.Null() });
  const certV2 = encoded(signingCertificateV2(signer, identity.chain[0]));
  return { certs, sid, certV2, key, signatureAlgorithm };
}

/**
 * A detached CMS SignedData (DER) whose content has SHA-256 `digest`, with a time-stamp token when
 * `stamp` is given. The signed attributes are signed with Node's crypto directly (PKI.js's own sign
 * path goes through WebCrypto and copies buffers several times: about 1 ms more per signature).
 */
async function cmsSignature(
  p: Prepared,
  digest: Buffer,
  stamp: ((signatureValue: Uint8Array) => Promise<pkijs.ContentInfo>) | undefined,
): Promise<Buffer> {
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: [
      new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
      new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: ab(digest) })] }),
      new pkijs.Attribute({ type: OID.signingCertificateV2, values: [p.certV2] }),
    ],
  });
  // what is signed is the attributes' DER as a SET (RFC 5652 5.4), not the [0] they are sent as
  const encoded = Buffer.from(signedAttrs.toSchema().toBER(false));
  encoded[0] = 0x31;
  signedAttrs.encodedValue = ab(encoded);
  const value = sign('sha256', encoded, { key: p.key, dsaEncoding: 'der' });
  const info = new pkijs.SignerInfo({
    version: 1,
    sid: p.sid,
    digestAlgorithm: sha256Id(),
    signedAttrs,
    signatureAlgorithm: p.signatureAlgorithm,
    signature: new asn1js.OctetString({ valueHex: ab(value) }),
  });
  if (stamp) {
    // B-T: the token covers the signature value, so it is asked for once the value exists
    const token = await stamp(value);
    info.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [token.toSchema()] })],
    });
  }
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [sha256Id()],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [info],
    certificates: p.certs as unknown as pkijs.CertificateSetItem[],
  });
  const content = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(false) });
  return Buffer.from(content.toSchema().toBER(false));
}

/** Signs PDF byte ranges as one certificate, its key and chain parsed once. */
export class PadesSigner {
  private readonly prepared: Prepared;
  /** the chain travels in the CMS; the rest (attributes, a signature of up to RSA-8192) stays under 2 KiB */
  readonly maxCmsBytes: number;

  constructor(identity: SigningIdentity) {
    this.prepared = prepare(identity);
    this.maxCmsBytes = identity.chain.reduce((n, der) => n + der.byteLength, 0) + 2048;
  }

  /**
   * The CMS over content whose SHA-256 is `digest`; `stamp`: the time-stamp authority's token over the
   * signature value (PAdES B-T); absent: B-B.
   */
  async signDigest(
    digest: Buffer,
    stamp?: (signatureValue: Uint8Array) => Promise<pkijs.ContentInfo>,
  ): Promise<Buffer> {
    return cmsSignature(this.prepared, digest, stamp);
  }
}
