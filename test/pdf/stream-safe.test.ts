// streamSafe reads each character once against a table of marks (issue 27: linear whatever the value).
// It must cut exactly what the regex it replaced cut: compared here with that regex on generated text
// mixing letters, Latin, Hebrew, Devanagari and astral marks, joiners, emoji, lone surrogates and runs
// of marks around the limit.
import { describe, expect, it } from 'vitest';
import { MAX_MARKS_IN_A_ROW, streamSafe } from '../../src/pdf/fonts/stream-safe.js';

/** The regex implementation streamSafe had until issue 27's marks row, as the reference. */
function reference(text: string): { text: string; dropped: number } {
  let dropped = 0;
  const long = new RegExp(`[\\p{M}\\u200c\\u200d]{${MAX_MARKS_IN_A_ROW + 1},}`, 'gu');
  const safe = text.replace(long, (run) => {
    const cps = [...run];
    dropped += cps.length - MAX_MARKS_IN_A_ROW;
    return cps.slice(0, MAX_MARKS_IN_A_ROW).join('');
  });
  return { text: safe, dropped };
}

/** A small deterministic generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASES = ['a', 'Z', ' ', 'é', 'ש', 'क', '中', '😀', '\u{1D11E}', '\ud800', '\udc00', 'x\ud83d'];
const MARKS = [
  '\u0301',
  '\u0300',
  '\u036f',
  '\u05b0',
  '\u093f',
  '\u0903',
  '\u200c',
  '\u200d',
  '\u{1D167}',
  '\u{E0100}',
  '\u20dd',
  '\ufe0f',
];

function generated(next: () => number): string {
  let s = '';
  const pieces = 1 + Math.floor(next() * 12);
  for (let p = 0; p < pieces; p++) {
    s += BASES[Math.floor(next() * BASES.length)];
    // runs clustered around the limit, sometimes far past it
    const r = next();
    const n = r < 0.3 ? Math.floor(next() * 5) : r < 0.9 ? 27 + Math.floor(next() * 7) : 31 + Math.floor(next() * 400);
    const mixed = next() < 0.5;
    const one = MARKS[Math.floor(next() * MARKS.length)]!;
    for (let i = 0; i < n; i++) s += mixed ? MARKS[Math.floor(next() * MARKS.length)] : one;
  }
  return s;
}

describe('streamSafe', () => {
  it('cuts what the regex cut, on 3,000 generated values', () => {
    const next = random(27);
    for (let k = 0; k < 3000; k++) {
      const text = generated(next);
      expect(streamSafe(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });

  it('keeps the first 30 marks of a long run and counts the rest in code points', () => {
    const tower = `a${'\u0301'.repeat(99_999)}`;
    expect(streamSafe(tower)).toEqual({ text: `a${'\u0301'.repeat(30)}`, dropped: 99_969 });
    const astral = `a${'\u{1D167}'.repeat(40)}b`;
    expect(streamSafe(astral)).toEqual({ text: `a${'\u{1D167}'.repeat(30)}b`, dropped: 10 });
  });

  it('gives text without long runs back as it is', () => {
    for (const text of ['', 'plain', 'déjà vu', `e${'\u0301'.repeat(30)}`, `${'\u0301'.repeat(30)}x`]) {
      expect(streamSafe(text)).toEqual({ text, dropped: 0 });
    }
  });
});
