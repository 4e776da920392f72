// columnHeader(): the header lines stacked over a table cell, read top to bottom.
import { describe, expect, it } from 'vitest';
import type { LabelPage } from '../../src/pdf/analysis/page-labels.js';
import type { Phrase } from '../../src/pdf/analysis/text-phrases.js';
import { columnHeader } from '../../src/pdf/detect/column-header.js';

const line = (text: string, x0: number, x1: number, y: number, size = 8): Phrase => ({
  text,
  x0,
  x1,
  y,
  size,
  bottom: y - 0.25 * size,
  top: y + 0.8 * size,
});

// two columns under a paragraph: "Taxable Payroll (as defined in State Act) (3)" and "Experience Rate Period (4) From-"
const page: LabelPage = {
  rotation: 0,
  widgets: [],
  phrases: [
    line('The form filed indicates the following information for the year shown.', 20, 590, 620),
    line('Taxable Payroll', 230, 300, 590),
    line('(as defined in State Act)', 215, 315, 581),
    line('(3)', 260, 270, 572),
    line('Experience Rate', 330, 400, 590),
    line('Period', 350, 380, 581),
    line('From-', 328, 350, 572),
    line('To-', 390, 405, 572),
  ],
};

describe('columnHeader', () => {
  it('reads the header lines over a cell, without the column number, and stops at the gap above', () => {
    expect(columnHeader(page, [208, 442, 323, 568])).toBe('Taxable Payroll (as defined in State Act)');
  });

  it('takes in a line spanning a group of columns', () => {
    expect(columnHeader(page, [323, 442, 377, 568])).toBe('Experience Rate Period From-');
  });

  it('answers nothing when no words stand over the cell', () => {
    expect(columnHeader(page, [500, 442, 560, 568])).toBe('');
  });
});
