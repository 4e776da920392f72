// Text fitting (appearance-text.ts, text-fit.ts): numbers and dates are never cut, auto size stops
// at a readable minimum, multiline fields draw whole lines only, and the warnings name the schema
// name. Forms are built with pdf-lib where a specific box is needed; results are read by poppler.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftotext, pdftotextLines, type TextLine } from '../helpers/pdf-tools.js';

const PAGE = 400;
/** Helvetica's ascent + descent per pt: the height poppler gives a line of it. */
const LINE_BOX = 0.718 + 0.207;

interface BoxSpec {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** /DA font size; 0 is auto size */
  size: number;
  multiline?: boolean;
}

/** A one-page form with borderless Helvetica text fields where the specs put them. */
async function form(specs: BoxSpec[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([PAGE, PAGE]);
  // Page content of its own (a page without any is a separate flattening case).
  page.drawText('Text fitting', { x: 20, y: PAGE - 30, size: 10 });
  const f = doc.getForm();
  for (const s of specs) {
    const field = f.createTextField(s.name);
    if (s.multiline) field.enableMultiline();
    field.addToPage(page, { x: s.x, y: s.y, width: s.width, height: s.height, borderWidth: 0 });
    const da = PDFString.of(`/Helv ${s.size} Tf 0 g`);
    field.acroField.dict.set(PDFName.of('DA'), da);
    for (const w of field.acroField.getWidgets()) w.dict.set(PDFName.of('DA'), da);
  }
  // pdf-lib's own appearance pass would rewrite the widgets' /DA with a computed size.
  return doc.save({ updateFieldAppearances: false });
}

/** poppler's text lines inside the spec's box (top-left origin), with a tolerance for rounding. */
function linesIn(lines: TextLine[], s: BoxSpec, slack = 0.6): TextLine[] {
  const top = PAGE - s.y - s.height;
  return lines.filter(
    (l) =>
      l.xMin >= s.x - slack &&
      l.xMax <= s.x + s.width + slack &&
      l.yMin >= top - slack &&
      l.yMax <= top + s.height + slack,
  );
}

/** poppler's text lines that overlap the spec's box at all. */
function linesTouching(lines: TextLine[], s: BoxSpec): TextLine[] {
  const top = PAGE - s.y - s.height;
  return lines.filter((l) => l.xMax > s.x && l.xMin < s.x + s.width && l.yMax > top && l.yMin < top + s.height);
}

const missing = ['pdftotext'].filter((t) => !hasTool(t));

describe.skipIf(missing.length > 0)('text fitting on pdf-lib-built forms (needs pdftotext)', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'text-fit-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function render(specs: BoxSpec[], values: Record<string, FillValue>) {
    const bytes = await form(specs);
    const analysis = await analyse(bytes);
    const result = await fillPdf(bytes, analysis, { values, flatten: true });
    const out = path.join(tmp, `${specs.map((s) => s.name).join('-')}.pdf`);
    fs.writeFileSync(out, result.bytes);
    return { out, analysis, warnings: result.warnings, lines: await pdftotextLines(out) };
  }

  it('shrinks an amount in a narrow 12 pt box so that it shows whole, inside the box', async () => {
    const amount: BoxSpec = { name: 'amount', x: 50, y: 300, width: 40, height: 16, size: 12 };
    const { lines, warnings } = await render([amount], { amount: { kind: 'text', text: '1,234.50' } });
    const inside = linesIn(lines, amount);
    expect(inside.map((l) => l.text)).toEqual(['1,234.50']);
    expect(linesTouching(lines, amount)).toHaveLength(1);
    expect(warnings).toEqual([]); // still above the readable minimum
  });

  it('keeps a number whole below the readable minimum in a tiny box and reports the shrink by schema name', async () => {
    const total: BoxSpec = { name: 'totals.grand', x: 50, y: 300, width: 30, height: 14, size: 10 };
    const { lines, warnings, analysis } = await render([total], {
      'totals.grand': { kind: 'text', text: '$12,345,678.90' },
    });
    expect(linesIn(lines, total).map((l) => l.text)).toEqual(['$12,345,678.90']);
    const name = analysis.fields[0].name;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^field "${name}": the value is drawn at [\\d.]+ pt`));
  });

  it('reports text that a box lower than the readable size forces below 6 pt', async () => {
    const low: BoxSpec = { name: 'low', x: 50, y: 300, width: 120, height: 4, size: 11 };
    const { warnings } = await render([low], { low: { kind: 'text', text: 'Zoe' } });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^field "low": the value is drawn at [\d.]+ pt, below the readable 6 pt/);
  });

  it('shrinks a single character that does not fit rather than leave the box empty', async () => {
    const cell: BoxSpec = { name: 'cell', x: 50, y: 300, width: 3, height: 14, size: 12 };
    const { lines, warnings } = await render([cell], { cell: { kind: 'text', text: 'W' } });
    expect(linesTouching(lines, cell).map((l) => l.text)).toEqual(['W']);
    expect(warnings[0]).toMatch(/drawn at [\d.]+ pt/);
  });

  it('never auto-sizes long text below 6 pt: it cuts after a whole word and says so with the schema name', async () => {
    const note: BoxSpec = { name: 'note', x: 50, y: 300, width: 60, height: 14, size: 0 };
    const text = 'The quick brown fox jumps over the lazy dog again and again';
    const { lines, warnings, analysis } = await render([note], { note: { kind: 'text', text } });
    const inside = linesIn(lines, note);
    expect(inside).toHaveLength(1);
    expect(linesTouching(lines, note)).toHaveLength(1);
    expect(inside[0].yMax - inside[0].yMin).toBeGreaterThanOrEqual(6 * LINE_BOX - 0.1);
    // whole words from the start, and not all of them
    expect(text.startsWith(inside[0].text)).toBe(true);
    expect(text.charAt(inside[0].text.length)).toBe(' ');
    expect(inside[0].text.length).toBeLessThan(text.length);
    expect(warnings).toEqual([
      `field "${analysis.fields[0].name}": the text does not fit the field and is cut off (${inside[0].text.length} of ${text.length} characters shown)`,
    ]);
  });

  it('cuts fixed-size text that overflows at a word, with no glyph outside the box', async () => {
    const who: BoxSpec = { name: 'who', x: 50, y: 300, width: 70, height: 16, size: 12 };
    const { lines, warnings } = await render([who], {
      who: { kind: 'text', text: 'Maximilian Oberhausen-Wittgenstein' },
    });
    expect(linesIn(lines, who).map((l) => l.text)).toEqual(['Maximilian']);
    expect(linesTouching(lines, who)).toHaveLength(1);
    expect(warnings).toEqual([
      'field "who": the text does not fit the field and is cut off (10 of 34 characters shown)',
    ]);
  });

  it('draws every line of an overflowing multiline field whole or not at all', async () => {
    const notes: BoxSpec = { name: 'notes', x: 50, y: 250, width: 150, height: 40, size: 10, multiline: true };
    const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of the notes`).join('\n');
    const { lines, warnings } = await render([notes], { notes: { kind: 'text', text } });
    const touching = linesTouching(lines, notes);
    expect(touching.length).toBeGreaterThan(0);
    expect(linesIn(lines, notes, 0.3)).toEqual(touching); // nothing drawn across the box's edge
    expect(touching.map((l) => l.text)).toEqual(
      Array.from({ length: touching.length }, (_, i) => `line ${i + 1} of the notes`),
    );
    expect(warnings).toEqual([
      `field "notes": the text does not fit the field and is cut off (${touching.length} of 12 lines shown)`,
    ]);
  });

  it('shrinks an auto-size multiline field to 6 pt before it drops lines', async () => {
    const notes: BoxSpec = { name: 'notes', x: 50, y: 250, width: 150, height: 40, size: 0, multiline: true };
    const fewer = Array.from({ length: 4 }, (_, i) => `line ${i + 1}`).join('\n');
    const fit = await render([notes], { notes: { kind: 'text', text: fewer } });
    expect(linesIn(fit.lines, notes, 0.3).map((l) => l.text)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(fit.warnings).toEqual([]);

    const many = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const cut = await render([notes], { notes: { kind: 'text', text: many } });
    const shown = linesIn(cut.lines, notes, 0.3);
    expect(linesTouching(cut.lines, notes)).toEqual(shown);
    for (const l of shown) expect(l.yMax - l.yMin).toBeGreaterThanOrEqual(6 * LINE_BOX - 0.1);
    expect(cut.warnings).toEqual([
      `field "notes": the text does not fit the field and is cut off (${shown.length} of 20 lines shown)`,
    ]);
  });
});

const dir = corpusDir();

describe.skipIf(!dir || missing.length > 0)(
  'text fitting on corpus forms (needs ../shared/corpus and pdftotext)',
  () => {
    let bytes: Uint8Array;
    let analysis: TemplateAnalysis;
    beforeAll(async () => {
      bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', 'irs-f1040-2024.pdf')));
      analysis = await analyse(bytes);
    });

    it('names cut fields by their schema name, not their PDF name', async () => {
      const texts = analysis.fields
        .filter((f) => f.type === 'text' && !f.pdfMeta.readOnly && !f.detail.multiline && !f.detail.comb)
        .slice(0, 5);
      expect(texts.some((f) => f.name !== f.pdfMeta.originalName)).toBe(true);
      const long =
        'A name far too long for any box of this form, repeated: a name far too long for any box of this form';
      const values = Object.fromEntries(
        texts.map((f) => [f.pdfMeta.originalName, { kind: 'text', text: long } as FillValue]),
      );
      const { warnings } = await fillPdf(bytes, analysis, { values, flatten: true });
      const cut = warnings.filter((w) => /cut off/.test(w));
      expect(cut).toHaveLength(texts.length);
      for (const f of texts) expect(cut.filter((w) => w.startsWith(`field "${f.name}":`))).toHaveLength(1);
      for (const w of warnings) expect(w).not.toContain('topmostSubform');
    });

    it("draws a long amount whole in the form's own amount boxes", async () => {
      const boxes = analysis.fields.filter(
        (f) =>
          f.type === 'text' && !f.pdfMeta.readOnly && !f.detail.multiline && !f.detail.comb && f.pdfMeta.page === 1,
      );
      const values = Object.fromEntries(
        boxes.map((f) => [f.pdfMeta.originalName, { kind: 'text', text: '12,345,678.90' } as FillValue]),
      );
      const { bytes: out } = await fillPdf(bytes, analysis, { values, flatten: true });
      const file = path.join(os.tmpdir(), `text-fit-f1040-${process.pid}.pdf`);
      fs.writeFileSync(file, out);
      try {
        const text = await pdftotext(file, { raw: true });
        const whole = text.match(/12,345,678\.90/g) ?? [];
        expect(whole.length).toBe(boxes.length);
      } finally {
        fs.rmSync(file, { force: true });
      }
    });
  },
);
