import { createHash, type Hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Of } from '../../src/modules/renders/seal-output.js';

// A render's SHA-256 over a pool engine's base + update hashes the base once per base object.

const whole = (...parts: Uint8Array[]) => createHash('sha256').update(Buffer.concat(parts)).digest('hex');
const bytes = (text: string) => new TextEncoder().encode(text);

describe('sha256Of with the base files already hashed', () => {
  it("answers the whole file's digest for every render sharing a base, hashing the base once", () => {
    const base = bytes('%PDF-1.7 the template version, most of every render\n'.repeat(100));
    const prefixes = new WeakMap<Uint8Array, Hash>();
    const first = bytes('update of the first render');
    const second = bytes('update of the second render, longer');
    expect(sha256Of([base, first], prefixes)).toBe(whole(base, first));
    const held = prefixes.get(base);
    expect(held).toBeDefined();
    // the held state is copied, never consumed: a later render's digest is still its own whole file's
    expect(sha256Of([base, second], prefixes)).toBe(whole(base, second));
    expect(sha256Of([base, first], prefixes)).toBe(whole(base, first));
    expect(prefixes.get(base)).toBe(held);
  });

  it('keeps nothing for a file in one chunk (in-process engine, sealed files)', () => {
    const prefixes = new WeakMap<Uint8Array, Hash>();
    const file = bytes('a whole file');
    expect(sha256Of([file], prefixes)).toBe(whole(file));
    expect(prefixes.has(file)).toBe(false);
    expect(sha256Of([], prefixes)).toBe(whole());
  });

  it('hashes every chunk without a map', () => {
    const parts = [bytes('a'), bytes('b'), bytes('c')];
    expect(sha256Of(parts)).toBe(whole(...parts));
  });
});
