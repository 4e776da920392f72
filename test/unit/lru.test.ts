import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/lib/lru.js';

describe('Lru (the one least-recently-used cache)', () => {
  it('drops the least recently used entry past its entry count; get counts as a use, has does not', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    expect(lru.has('b')).toBe(true); // b stays the least recent
    lru.set('c', 3);
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([true, false, true]);
  });

  it('keeps the total weight within its budget and never keeps an entry heavier than the budget', () => {
    const lru = new Lru<string, Uint8Array>(100, 10, (b) => b.byteLength);
    lru.set('a', new Uint8Array(4));
    lru.set('b', new Uint8Array(4));
    lru.set('c', new Uint8Array(4)); // 12 > 10: a goes
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([false, true, true]);
    lru.set('huge', new Uint8Array(11));
    expect(lru.has('huge')).toBe(false);
    expect([lru.has('b'), lru.has('c')]).toEqual([true, true]);
    lru.set('b', new Uint8Array(1)); // replacing an entry re-weighs it: 1 + 4 + 4 fits
    lru.set('d', new Uint8Array(4));
    expect([lru.has('b'), lru.has('c'), lru.has('d')]).toEqual([true, true, true]);
  });

  it('keeps falsy values (null, false) as entries and keeps nothing with a zero size', () => {
    const lru = new Lru<string, boolean | null>(4);
    lru.set('no', false);
    lru.set('none', null);
    expect(lru.get('no')).toBe(false);
    expect(lru.get('none')).toBe(null);
    const none = new Lru<string, number>(0);
    none.set('a', 1);
    expect(none.get('a')).toBeUndefined();
  });

  it('remembers: makes a missing value once and keeps it, within the bounds', () => {
    const lru = new Lru<string, string>(1);
    let made = 0;
    const make = () => `v${++made}`;
    expect(lru.remember('a', make)).toBe('v1');
    expect(lru.remember('a', make)).toBe('v1');
    expect(lru.remember('b', make)).toBe('v2'); // a goes (one entry)
    expect(lru.remember('a', make)).toBe('v3');
    expect(new Lru<string, string>(0).remember('a', make)).toBe('v4'); // kept nowhere, still answered
  });
});
