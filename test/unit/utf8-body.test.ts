// A JSON body's bytes are decoded by decodeUtf8 (ICU's transcoding for large non-ASCII bodies) and hashed
// for Idempotency-Key from the bytes: both must give exactly what the text-based code gave.
import { describe, expect, it } from 'vitest';
import { hashBody, hashJsonBody } from '../../src/http/idempotency.js';
import { decodeUtf8 } from '../../src/lib/utf8.js';

const big = (unit: string) => unit.repeat(Math.ceil(40_000 / unit.length));
const texts = {
  ascii: big('plain ascii {"a":1} '),
  latin: big('Élodie Müller, Zürich; '),
  marks: `a${'\u0301'.repeat(99_999)}`,
  cjk: big('中文テキスト한국어 '),
  astral: big('😀𝄞𐐷 '),
  bom: `\ufeff${big('x\u0301 ')}`,
  nul: big('a\u0000é'),
  small: 'déjà vu',
};

describe('decodeUtf8', () => {
  it.each(Object.entries(texts))('decodes %s text as Buffer#toString does', (_name, text) => {
    const bytes = Buffer.from(text, 'utf8');
    expect(decodeUtf8(bytes)).toBe(text);
    expect(decodeUtf8(bytes)).toBe(bytes.toString('utf8'));
  });

  it('replaces malformed sequences exactly as Buffer#toString does', () => {
    const good = Buffer.from(texts.latin, 'utf8');
    for (const bad of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xe2, 0x82]]) {
      for (const bytes of [
        Buffer.concat([good, Buffer.from(bad)]),
        Buffer.concat([Buffer.from(bad), good]),
        Buffer.concat([good.subarray(0, 20_001), Buffer.from(bad), good.subarray(20_001)]),
      ]) {
        expect(decodeUtf8(bytes)).toBe(bytes.toString('utf8'));
      }
    }
  });
});

describe('hashJsonBody', () => {
  // keys stored before bodies were kept as bytes hold hashBody(prefix + text): they must still match
  it.each(Object.entries(texts))('hashes %s bytes as hashBody hashed the text', (_name, text) => {
    const bytes = Buffer.from(text, 'utf8');
    expect(hashJsonBody(bytes)).toBe(hashBody(text));
    expect(hashJsonBody(bytes, 'async:')).toBe(hashBody(`async:${text}`));
  });

  // a client sending Latin-1 as JSON, say: the old digest saw the replacement characters of its decoding
  it('hashes malformed UTF-8 as hashBody hashed its decoded text', () => {
    for (const bad of [[0xe9], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf5, 0x80, 0x80, 0x80], [0xff, 0xfe]]) {
      const bytes = Buffer.concat([Buffer.from('{"name":"Ren'), Buffer.from(bad), Buffer.from('e"}')]);
      expect(hashJsonBody(bytes)).toBe(hashBody(bytes.toString('utf8')));
      expect(hashJsonBody(bytes, 'async:')).toBe(hashBody(`async:${bytes.toString('utf8')}`));
    }
  });

  it('tells bodies apart, and the prefix from the body', () => {
    expect(hashJsonBody(Buffer.from('{"a":1}'))).not.toBe(hashJsonBody(Buffer.from('{"a":2}')));
    expect(hashJsonBody(Buffer.from('{"a":1}'), 'async:')).not.toBe(hashJsonBody(Buffer.from('{"a":1}')));
    expect(hashJsonBody(undefined)).toBe(hashBody(''));
  });
});
