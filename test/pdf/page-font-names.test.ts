// flatten.ts draws a value's appearance into the page with the page's font names: withPageFonts must find
// exactly what the regular expression it replaced found, /\/(F\d+)(?= [-\d.]+ Tf)/g, and replace the same.
import { describe, expect, it } from 'vitest';
import { withPageFonts } from '../../src/pdf/fill/flatten.js';

const FONT_NAME = /\/(F\d+)(?= [-\d.]+ Tf)/g;
const byRegex = (content: string, names: ReadonlyMap<string, string>) =>
  content.replace(FONT_NAME, (all, local: string) => {
    const name = names.get(local);
    return name ? `/${name}` : all;
  });

/** A small deterministic generator (the same cases every run). */
function lcg(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const PIECES = [
  '/F0x12 Tf',
  '/F1\n12 Tf',
  '/F0  Tf',

  '/F0 12',
  '/F1 -1 Tj',
  '/F12 3 TL',
  '/F3 12 T',
  '/F0 x Tf',

  '/F0 12 Tf',
  '/F1 -3.5 Tf',
  '/F12 0 Tf',
  '/F2 Tf',
  '/F 12 Tf',
  '/F3  12 Tf',
  '/F4 12 Tfx',
  '/F5 1.2.3 Tf',
  '/F6 12',
  '/Tx BMC',
  ' <48656c6c6f> Tj',
  ' 1 0 0 1 2 3 Tm',
  '\n',
  ' ',
  '/F',
  '/F7',
  '/F8 ',
  '/F9 1',
  ' Tf',
  '/FcF3 9 Tf',
  '//F1 9 Tf',
  '/F10 -- Tf',
  '/F11 . Tf',
  'q 0 g BT',
  'ET Q EMC',
  '/F1 12 Tf/F2 10 Tf',
];

describe('withPageFonts', () => {
  const names = new Map([
    ['F0', 'FcF1'],
    ['F1', 'FcF2'],
    ['F12', 'FcF30'],
    ['F3', 'FcF4'],
    ['F4', 'FcF5'],
    ['F5', 'FcF6'],
    ['F1 ', 'never'],
    ['F10', 'FcF7'],
    ['F11', 'FcF8'],
    ['F2', ''],
    ['F', 'FcF9'],
  ]);

  it('replaces the names of real Tf operands and keeps everything else', () => {
    const content = '/Tx BMC q BT 0 g\n1 0 0 1 2 3 Tm /F0 12 Tf <48> Tj /F9 8 Tf <49> Tj ET Q EMC';
    expect(withPageFonts(content, names)).toBe(
      '/Tx BMC q BT 0 g\n1 0 0 1 2 3 Tm /FcF1 12 Tf <48> Tj /F9 8 Tf <49> Tj ET Q EMC',
    );
    expect(withPageFonts('no names here', names)).toBe('no names here');
  });

  it('answers as the regular expression did on 20,000 generated contents', () => {
    const rand = lcg(7);
    for (let i = 0; i < 20_000; i++) {
      let content = '';
      const n = Math.floor(rand() * 8);
      for (let j = 0; j < n; j++) content += PIECES[Math.floor(rand() * PIECES.length)];
      expect(withPageFonts(content, names), JSON.stringify(content)).toBe(byRegex(content, names));
    }
  });
});
