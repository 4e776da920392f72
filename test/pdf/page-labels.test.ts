// The caption finder on forms built here, one layout each: the caption left of a field, above it,
// inside a table cell, right of a check box, the row caption of comb cells and of a date in three
// fields, radio buttons' own words, the tooltip's precedence and the time budget.
import { PDFDocument, PDFName, PDFString, StandardFonts, rgb, type PDFFont, type PDFPage } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { AnalysedField } from '../../src/pdf/types.js';

async function build(draw: (page: PDFPage, doc: PDFDocument, font: PDFFont) => void): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  draw(page, doc, font);
  return doc.save();
}

const text = (page: PDFPage, font: PDFFont, s: string, x: number, y: number, size = 10) =>
  page.drawText(s, { x, y, size, font, color: rgb(0, 0, 0) });

async function fields(bytes: Uint8Array): Promise<Map<string, AnalysedField>> {
  return new Map((await analyse(bytes)).fields.map((f) => [f.pdfMeta.originalName, f]));
}

describe('page captions (forms built here)', () => {
  it('reads the caption left of a field, and above a field that has none on its line', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      text(page, font, 'Last name:', 50, 700);
      form.createTextField('t1').addToPage(page, { x: 120, y: 696, width: 150, height: 14, font });
      text(page, font, 'Street address', 50, 662);
      form.createTextField('t2').addToPage(page, { x: 50, y: 640, width: 200, height: 14, font });
    });
    const f = await fields(bytes);
    expect(f.get('t1')).toMatchObject({ label: 'Last name', labelSource: 'page', suggestedName: 'last_name' });
    expect(f.get('t2')).toMatchObject({
      label: 'Street address',
      labelSource: 'page',
      suggestedName: 'street_address',
    });
  });

  it('gives each cell of a table row the caption printed in that cell', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      for (const [i, caption] of ['Amount', 'Currency', 'Due date'].entries()) {
        const x = 50 + i * 120;
        page.drawRectangle({ x, y: 600, width: 120, height: 34, borderColor: rgb(0, 0, 0), borderWidth: 0.5 });
        text(page, font, caption, x + 2, 624, 7);
        form.createTextField(`cell${i}`).addToPage(page, { x: x + 2, y: 602, width: 116, height: 18, font });
      }
    });
    const f = await fields(bytes);
    expect(['cell0', 'cell1', 'cell2'].map((n) => f.get(n)?.label)).toEqual(['Amount', 'Currency', 'Due date']);
  });

  it('reads the words right of a check box, and puts the question before a bare yes or no', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      form.createCheckBox('agree').addToPage(page, { x: 50, y: 600, width: 10, height: 10 });
      text(page, font, 'I agree to the terms', 65, 601);
      text(page, font, 'Married:', 50, 571);
      form.createCheckBox('yes').addToPage(page, { x: 100, y: 570, width: 10, height: 10 });
      text(page, font, 'Yes', 113, 571);
      form.createCheckBox('no').addToPage(page, { x: 140, y: 570, width: 10, height: 10 });
      text(page, font, 'No', 153, 571);
    });
    const f = await fields(bytes);
    expect(f.get('agree')?.label).toBe('I agree to the terms');
    expect(f.get('yes')).toMatchObject({ label: 'Married: Yes', suggestedName: 'married_yes' });
    expect(f.get('no')).toMatchObject({ label: 'Married: No', suggestedName: 'married_no' });
  });

  it('gives a comb field and every part of a date written in three fields the caption of their row', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      text(page, font, 'Tax number', 50, 560);
      const comb = form.createTextField('comb');
      comb.setMaxLength(9);
      comb.enableCombing();
      comb.addToPage(page, { x: 120, y: 556, width: 135, height: 14, font });
      text(page, font, 'Date of birth', 50, 520);
      for (const [i, x] of [130, 160, 190].entries()) {
        if (i > 0) text(page, font, '/', x - 7, 520);
        form.createTextField(`d${i}`).addToPage(page, { x, y: 516, width: 22, height: 14, font });
      }
    });
    const f = await fields(bytes);
    expect(f.get('comb')?.label).toBe('Tax number');
    expect(['d0', 'd1', 'd2'].map((n) => f.get(n)?.label)).toEqual(['Date of birth', 'Date of birth', 'Date of birth']);
    expect(['d0', 'd1', 'd2'].map((n) => f.get(n)?.suggestedName)).toEqual([
      'date_of_birth',
      'date_of_birth_2',
      'date_of_birth_3',
    ]);
  });

  it('labels radio options with the words beside each button and keeps their export values', async () => {
    const bytes = await build((page, doc, font) => {
      const group = doc.getForm().createRadioGroup('colour');
      text(page, font, 'Favourite colour:', 50, 481);
      group.addOptionToPage('r', page, { x: 140, y: 480, width: 10, height: 10 });
      text(page, font, 'Red', 153, 481);
      group.addOptionToPage('b', page, { x: 190, y: 480, width: 10, height: 10 });
      text(page, font, 'Blue', 203, 481);
    });
    const f = (await fields(bytes)).get('colour');
    expect(f).toMatchObject({ label: 'Favourite colour', options: ['r', 'b'], optionLabels: ['Red', 'Blue'] });
  });

  it('keeps the tooltip as the label when the author wrote one, and says where each label came from', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      text(page, font, 'Name:', 50, 700);
      const tf = form.createTextField('named');
      tf.addToPage(page, { x: 100, y: 696, width: 150, height: 14, font });
      tf.acroField.dict.set(PDFName.of('TU'), PDFString.of('Full legal name'));
      form.createTextField('bare').addToPage(page, { x: 300, y: 300, width: 100, height: 14, font });
    });
    const f = await fields(bytes);
    expect(f.get('named')).toMatchObject({ label: 'Full legal name', labelSource: 'tooltip' });
    expect(f.get('bare')).toMatchObject({ label: null, labelSource: 'none', suggestedName: 'bare' });
  });

  it('still analyses the form, without page captions, when the text budget is spent', async () => {
    const bytes = await build((page, doc, font) => {
      text(page, font, 'Last name:', 50, 700);
      text(page, font, 'First name:', 50, 600);
      doc.getForm().createTextField('t1').addToPage(page, { x: 120, y: 696, width: 150, height: 14, font });
    });
    const [field] = (await analyse(bytes, { maxTextItems: 1 })).fields;
    expect(field).toMatchObject({ label: null, labelSource: 'none', suggestedName: 't1' });
  });

  it('reads no caption from a page pdf.js cannot read, and the analysis still succeeds', async () => {
    const bytes = await build((page, doc, font) => {
      doc.getForm().createTextField('t1').addToPage(page, { x: 120, y: 696, width: 150, height: 14, font });
      // a content stream that is not one: pdf.js gives up on it, pdf-lib never reads it
      page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream('BT /F9 Tf (x')));
    });
    const [field] = (await analyse(bytes)).fields;
    expect(field.labelSource).toBe('none');
  });
});
