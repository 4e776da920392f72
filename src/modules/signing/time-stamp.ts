import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { TimestampConfig } from '../../config.js';
import { PdfEngineError } from '../../pdf/types.js';

// An RFC 3161 time-stamp token over a signature value (PAdES B-T, ETSI EN 319 122-1 5.3): SHA-256
// message imprint, a fresh nonce, the TSA's certificate asked for. The whole exchange has one
// deadline; an answer that is not a granted token over our imprint and nonce, signed by the
// certificate it carries, is refused. Every failure is a RENDER_FAILED that names the authority's fault.

const SHA256 = '2.16.840.1.101.3.4.2.1';
/** A token is a few KiB (the TSA's chain included); anything far larger is not one. */
const MAX_RESPONSE_BYTES = 256 * 1024;
/** PKIStatus granted and grantedWithMods (RFC 3161 2.4.2) */
const GRANTED = new Set([0, 1]);

const ab = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

const tsaFailed = (detail: string) =>
  new PdfEngineError('RENDER_FAILED', `the time-stamp authority (TSA_URL) ${detail}; the file was not signed`);

function request(imprint: Buffer, nonce: Buffer): ArrayBuffer {
  return new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: ab(imprint) }),
    }),
    nonce: new asn1js.Integer({ valueHex: ab(nonce) }),
    certReq: true,
  })
    .toSchema()
    .toBER(false);
}

/** The response body, read within `signal` and at most MAX_RESPONSE_BYTES. */
async function post(url: string, body: ArrayBuffer, signal: AbortSignal): Promise<Buffer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
    body,
    redirect: 'error',
    signal,
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw tsaFailed(`answered HTTP ${res.status}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    if (size > MAX_RESPONSE_BYTES) throw tsaFailed(`answered more than ${MAX_RESPONSE_BYTES} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

/** The token (a CMS ContentInfo) once it is checked against what was asked. */
async function readToken(der: Buffer, stamped: Uint8Array, imprint: Buffer, nonce: Buffer): Promise<pkijs.ContentInfo> {
  let resp: pkijs.TimeStampResp;
  let info: pkijs.TSTInfo;
  let signed: pkijs.SignedData;
  try {
    resp = pkijs.TimeStampResp.fromBER(ab(der));
  } catch {
    throw tsaFailed('answered something that is not an RFC 3161 time-stamp response');
  }
  const status = resp.status.status;
  if (!GRANTED.has(status) || !resp.timeStampToken) {
    const text = resp.status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    throw tsaFailed(`refused the request (PKIStatus ${status}${text ? `: ${text.slice(0, 200)}` : ''})`);
  }
  try {
    signed = new pkijs.SignedData({ schema: resp.timeStampToken.content });
    const content = signed.encapContentInfo.eContent;
    if (!content) throw new Error('no TSTInfo');
    info = pkijs.TSTInfo.fromBER(content.getValue());
  } catch {
    throw tsaFailed('answered a token that holds no readable TSTInfo');
  }
  if (!Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView).equals(imprint))
    throw tsaFailed('answered a token over another message');
  if (!info.nonce || !Buffer.from(info.nonce.valueBlock.valueHexView).equals(nonce))
    throw tsaFailed("answered a token without this request's nonce");
  const crypto = new pkijs.CryptoEngine({
    name: 'node',
    crypto: webcrypto as unknown as pkijs.ICryptoEngine['crypto'],
  });
  // its own signature by the certificate it carries (certReq), over the imprint of `stamped`; whom to
  // trust is the verifier's choice
  const ok = await signed.verify({ signer: 0, checkChain: false, data: ab(stamped) }, crypto).catch(() => false);
  if (!ok) throw tsaFailed('answered a token whose signature does not verify');
  return resp.timeStampToken;
}

/** The time-stamp token (DER of its ContentInfo) over `signatureValue`, from the operator's TSA. */
export async function timeStampToken(
  config: Required<Pick<TimestampConfig, 'url'>> & TimestampConfig,
  signatureValue: Uint8Array,
): Promise<pkijs.ContentInfo> {
  const imprint = createHash('sha256').update(signatureValue).digest();
  // positive and 64 bits: an INTEGER whose first byte has the high bit clear
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0] & 0x7f) | 0x01;
  const signal = AbortSignal.timeout(config.timeoutMs);
  let der: Buffer;
  try {
    der = await post(config.url, request(imprint, nonce), signal);
  } catch (err) {
    if (err instanceof PdfEngineError) throw err;
    if (signal.aborted) throw tsaFailed(`did not answer within ${config.timeoutMs} ms (TSA_TIMEOUT_MS)`);
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw tsaFailed(`could not be reached (${cause.slice(0, 200)})`);
  }
  return readToken(der, signatureValue, imprint, nonce);
}
