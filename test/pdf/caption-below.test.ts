// Captions printed under writing lines (caption-below.ts) and the words of a field's row (row-context.ts),
// on pages built here: phrases and widgets placed as on the pdflib sample and the Illinois bill of sale.
import { describe, expect, it } from 'vitest';
import type { LabelPage } from '../../src/pdf/analysis/page-labels.js';
import type { Phrase } from '../../src/pdf/analysis/text-phrases.js';
import { blockHeading, hangingPhrase } from '../../src/pdf/detect/caption-below.js';
import { rowQuestion, sentenceAbove, signatureBefore } from '../../src/pdf/detect/row-context.js';
import type { Rect } from '../../src/pdf/types.js';

const line = (text: string, x0: number, x1: number, y: number, size = 8): Phrase => ({
  text,
  x0,
  x1,
  y,
  size,
  bottom: y - 0.25 * size,
  top: y + 0.8 * size,
});
const page = (phrases: Phrase[], widgets: Rect[] = []): LabelPage => ({
  rotation: 0,
  phrases,
  widgets: widgets.map((rect, owner) => ({ owner, rect })),
});

describe('hangingPhrase and blockHeading', () => {
  // NAME over three lines, each captioned underneath: LAST, FIRST, MIDDLE
  const name = line('NAME', 30, 60, 425, 10.8);
  const last = line('LAST', 30, 46, 393, 7.6);
  const first = line('FIRST', 30, 48, 369, 7.6);
  const middle = line('MIDDLE', 30, 56, 345, 7.6);
  const lines: Rect[] = [
    [30, 401, 273, 417],
    [30, 377, 273, 390],
    [30, 353, 177, 366],
  ];
  const p = page([name, last, first, middle], lines);

  it('reads the words hanging right under a line, starting where it starts', () => {
    expect(lines.map((r) => hangingPhrase(p, r)?.text)).toEqual(['LAST', 'FIRST', 'MIDDLE']);
  });

  it('reads no caption under a line when the words below start elsewhere or stand far below', () => {
    expect(hangingPhrase(p, [100, 401, 273, 417])).toBeUndefined();
    expect(hangingPhrase(page([line('Next caption', 30, 90, 380)]), [30, 401, 273, 417])).toBeUndefined();
  });

  it('takes a date pattern under a line for a hint, not a caption', () => {
    expect(hangingPhrase(page([line('MONTH/DAY/YEAR', 437, 500, 182, 6)]), [437, 188, 507, 204])).toBeUndefined();
    expect(hangingPhrase(page([line('Month', 712, 730, 447, 6)]), [712, 453, 797, 469])).toBeUndefined();
  });

  it('finds the block’s heading above, past the captions hanging under the lines', () => {
    const under = new Set([last, first, middle]);
    expect(blockHeading(p, lines[2], middle, under)).toBe('NAME');
    // no larger words above: no heading
    expect(blockHeading(page([last, first, middle], lines), lines[2], middle, under)).toBe('');
  });
});

describe('row context', () => {
  it('reads the question before a row of check boxes that each have their words', () => {
    const p = page(
      [line('Fixe', 40, 52, 446), line('Concentrateur', 66, 120, 446), line('Mobile', 250, 275, 446)],
      [
        [54, 444, 63, 453],
        [280, 444, 289, 453],
      ],
    );
    expect(rowQuestion(p, [54, 444, 63, 453])).toBe('Fixe');
    expect(rowQuestion(p, [280, 444, 289, 453])).toBe('Mobile');
  });

  it('reads the signature a date sits beside on its line', () => {
    const p = page([line('Buyer’s Signature:', 72, 178, 330, 12), line('Date:', 385, 414, 330, 12)]);
    expect(signatureBefore(p, [423, 327, 537, 343])).toBe('Buyer’s Signature');
    expect(signatureBefore(page([line('Date:', 385, 414, 330, 12)]), [423, 327, 537, 343])).toBe('');
  });

  it('reads the sentence a bare writing line finishes, only when it runs on into it', () => {
    const runsOn = page([line('(“Buyer”) with a mailing address of', 280, 460, 635)]);
    expect(sentenceAbove(runsOn, [72, 606, 532, 621])).toBe('(“Buyer”) with a mailing address of');
    const ends = page([line('Hereinafter known as the “Firearm.”', 72, 250, 635)]);
    expect(sentenceAbove(ends, [72, 606, 532, 621])).toBe('');
  });
});
