// AES-encrypted files decrypted by Node's crypto (OpenSSL) instead of pdf-lib's AES, a JavaScript port of
// pdf.js's that runs byte by byte: it decrypts every string and stream of the file as the parser meets them,
// and on an encrypted form (the I-90, 1,000 objects) it was an eighth of an offline render's CPU. The
// result is pdf-lib's to the byte: the same key (the first bytes of its expanded key are the key itself, as
// AES's key schedule makes them), the same handling of a partial last block (left out) and of padding
// (removed only when well formed, as pdf.js does). What the one-call form does not cover (a stream fed in
// pieces, an IV given) stays pdf-lib's. pdf-lib does not export its cipher classes: their prototype is
// found through the first document's cipher factory. A fix of the library's code, not state: applied to
// its prototype once, marked on the prototype itself.
import { createDecipheriv } from 'node:crypto';
import { PDFParser } from '@cantoo/pdf-lib';

type DecryptBlock = (this: AesCipher, data: Uint8Array, finalize: boolean, iv?: Uint8Array) => Uint8Array;

/** What of pdf-lib's AESBaseCipher (pdf.js's) this reads and sets. */
interface AesCipher {
  /** the expanded key: the cipher key first */
  _key: Uint8Array;
  /** rounds: 10 for AES-128, 14 for AES-256 */
  _cyclesOfRepetition: number;
  buffer: Uint8Array;
  bufferLength: number;
  iv: Uint8Array;
  decryptBlock: DecryptBlock;
  _decryptBlock2: DecryptBlock;
}

interface CipherFactory {
  createCipherTransform(
    num: number,
    gen: number,
  ): {
    StringCipherConstructor(): unknown;
    StreamCipherConstructor(): unknown;
  };
}

const FIXED = Symbol.for('formcast.nativeAes');

/**
 * pdf.js's decryptBlock(data, true) on a fresh cipher, by OpenSSL: the first 16 bytes are the IV, then the
 * whole blocks; a padding of n bytes of value n (1-16) at the end is removed, any other end is kept.
 */
function decryptCbcOnce(key: Uint8Array, data: Uint8Array): { plain: Uint8Array; tail: Uint8Array } {
  const blocks = (data.length - 16) >> 4;
  const body = data.subarray(16, 16 + blocks * 16);
  const decipher = createDecipheriv(key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc', key, data.subarray(0, 16));
  decipher.setAutoPadding(false);
  const head = decipher.update(body);
  const rest = decipher.final();
  const out = new Uint8Array(head.length + rest.length);
  out.set(head);
  out.set(rest, head.length);
  let pad = out.length ? out[out.length - 1] : 0;
  if (pad <= 16) {
    for (let i = out.length - pad; i < out.length; i++) {
      if (out[i] !== pad) {
        pad = 0;
        break;
      }
    }
  } else pad = 0;
  return { plain: pad ? out.subarray(0, out.length - pad) : out, tail: data.subarray(16 + blocks * 16) };
}

function patch(proto: AesCipher): void {
  const original = proto.decryptBlock;
  proto.decryptBlock = function decryptBlock(this: AesCipher, data, finalize, iv) {
    // one call with the IV in front and at least one whole block: the form every string and stream takes
    if (iv !== undefined || !finalize || data.length < 32) return original.call(this, data, finalize, iv);
    const key = this._key.subarray(0, this._cyclesOfRepetition === 14 ? 32 : 16);
    const { plain, tail } = decryptCbcOnce(key, data);
    // the state pdf-lib's call leaves behind (a later call would go on from it)
    const whole = data.length - tail.length;
    this.iv = data.slice(whole - 16, whole);
    this.buffer = new Uint8Array(16);
    this.buffer.set(tail);
    this.bufferLength = tail.length;
    this.decryptBlock = this._decryptBlock2;
    return plain;
  };
  Object.defineProperty(proto, FIXED, { value: true });
}

/** The prototype that holds pdf-lib's AES decryption, reached from one of its ciphers. */
function aesPrototype(cipher: unknown): AesCipher | undefined {
  for (let p = cipher && Object.getPrototypeOf(cipher); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const own = (k: string) => Object.hasOwn(p, k);
    if (own('decryptBlock') && own('_decryptBlock2') && own('_decrypt')) return p as AesCipher;
  }
  return undefined;
}

/** Makes pdf-lib decrypt AES through Node's crypto, from its first AES-encrypted document on (idempotent). */
export function decryptAesNatively(): void {
  const parser = PDFParser.prototype as unknown as {
    parseDocument(this: { cryptoFactory?: CipherFactory }): Promise<unknown>;
    [FIXED]?: true;
  };
  if (parser[FIXED]) return;
  const parseDocument = parser.parseDocument;
  parser.parseDocument = function (this: { cryptoFactory?: CipherFactory }) {
    if (this.cryptoFactory) {
      try {
        const transform = this.cryptoFactory.createCipherTransform(1, 0);
        for (const cipher of [transform.StringCipherConstructor(), transform.StreamCipherConstructor()]) {
          const proto = aesPrototype(cipher);
          if (proto && !(proto as unknown as { [FIXED]?: true })[FIXED]) patch(proto);
        }
      } catch {
        // a crypt filter pdf-lib cannot make: its parse meets the same error and reports it
      }
    }
    return parseDocument.call(this);
  };
  Object.defineProperty(parser, FIXED, { value: true });
}
