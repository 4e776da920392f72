// AES decrypted by Node's crypto (native-aes.ts) gives pdf-lib's own answer, byte for byte: the oracle is
// pdf-lib's CommonJS copy of its cipher classes, which the patch never touches (the engine loads the ES
// module copy, the one patched once an AES-encrypted file is parsed).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPdf } from '../../src/pdf/load.js';
import { corpusDir, repoRoot } from '../helpers/corpus.js';

interface Cipher {
  decryptBlock(data: Uint8Array, finalize: boolean, iv?: Uint8Array): Uint8Array;
}
type CipherClass = new (key: Uint8Array) => Cipher;
interface Classes {
  AES128Cipher: CipherClass;
  AES256Cipher: CipherClass;
}

const pdfLib = path.join(repoRoot, 'node_modules/@cantoo/pdf-lib');
const oracle = createRequire(import.meta.url)(path.join(pdfLib, 'cjs/core/crypto.js')) as Classes;
let patched: Classes;
const corpus = corpusDir();

beforeAll(async () => {
  if (!corpus) return;
  // the corpus's AES-128 form: its parse patches the prototype
  await loadPdf(new Uint8Array(readFileSync(path.join(corpus, 'pdfs', 'vitality-rebate-aes-encrypted.pdf'))));
  patched = (await import(pathToFileURL(path.join(pdfLib, 'es/core/crypto.js')).href)) as Classes;
});

/** `plain` encrypted as PDF writers do: a random IV first, then CBC blocks, padded (or not) at the end. */
function encrypted(key: Uint8Array, plain: Uint8Array, pad: boolean): Uint8Array {
  const { createCipheriv } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const iv = randomBytes(16);
  const c = createCipheriv(key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc', key, iv);
  c.setAutoPadding(pad);
  return Buffer.concat([iv, c.update(plain), c.final()]);
}

describe.skipIf(!corpus)('AES decryption through Node crypto', () => {
  it('is patched in, once an AES-encrypted file has been parsed', () => {
    const proto = Object.getPrototypeOf(Object.getPrototypeOf(new patched.AES128Cipher(new Uint8Array(16))));
    expect(proto[Symbol.for('formcast.nativeAes')]).toBe(true);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(new oracle.AES128Cipher(new Uint8Array(16))))).not.toBe(proto);
  });

  for (const [name, keyBytes] of [
    ['AES128Cipher', 16],
    ['AES256Cipher', 32],
  ] as const) {
    it(`${name}: the same bytes as pdf-lib's, padded or not, whole or cut, and the same state after`, () => {
      const cases: Uint8Array[] = [];
      for (let n = 0; n < 70; n++) {
        const key = randomBytes(keyBytes);
        const plain = randomBytes(n);
        cases.push(encrypted(key, plain, true), key);
        if (n % 16 === 0) cases.push(encrypted(key, plain, false), key); // no padding: the last byte decides
      }
      // random bytes (bad padding), short and cut inputs, a block whose last byte is 0, a large stream
      for (const n of [0, 5, 16, 17, 31, 32, 33, 47, 48, 100, 4096 + 16 + 7])
        cases.push(randomBytes(n), randomBytes(keyBytes));
      const zeroEnd = encrypted(new Uint8Array(keyBytes), new Uint8Array(32), false);
      cases.push(zeroEnd, new Uint8Array(keyBytes));
      // a padding of 16 bytes of 16 (a whole block), and a last byte over 16
      cases.push(
        encrypted(new Uint8Array(keyBytes).fill(7), new Uint8Array(16).fill(16), false),
        new Uint8Array(keyBytes).fill(7),
      );
      cases.push(
        encrypted(new Uint8Array(keyBytes).fill(9), new Uint8Array(32).fill(200), false),
        new Uint8Array(keyBytes).fill(9),
      );
      let compared = 0;
      for (let i = 0; i < cases.length; i += 2) {
        const [data, key] = [cases[i], cases[i + 1]];
        const ours = new patched[name](key);
        const theirs = new oracle[name](key);
        // the inputs are random: a failure names them, to be run again
        const input = `key ${Buffer.from(key).toString('hex')}, data ${Buffer.from(data).toString('hex')}`;
        expect(Buffer.from(ours.decryptBlock(data, true)), input).toEqual(Buffer.from(theirs.decryptBlock(data, true)));
        // what a later call on the same cipher decrypts, from the state the first left behind
        const more = randomBytes(40);
        expect(Buffer.from(ours.decryptBlock(more, true)), `${input}, then ${more.toString('hex')}`).toEqual(
          Buffer.from(theirs.decryptBlock(more, true)),
        );
        compared++;
      }
      expect(compared).toBeGreaterThan(80);
    });
  }

  it('leaves a stream fed in pieces and a given IV to pdf-lib, with the same result', () => {
    const key = randomBytes(16);
    const data = encrypted(key, randomBytes(100), true);
    const ours = new patched.AES128Cipher(key);
    const theirs = new oracle.AES128Cipher(key);
    const pieces = (c: Cipher) =>
      Buffer.concat([c.decryptBlock(data.subarray(0, 40), false), c.decryptBlock(data.subarray(40), true)]);
    expect(pieces(ours)).toEqual(pieces(theirs));
    const iv = randomBytes(16);
    const body = data.subarray(16);
    expect(Buffer.from(new patched.AES128Cipher(key).decryptBlock(body, true, iv))).toEqual(
      Buffer.from(new oracle.AES128Cipher(key).decryptBlock(body, true, iv)),
    );
  });
});
