// Suggested keys that several fields would share, told apart by the section each sits in (a heading
// above it: a numbered part, a numbered party such as "Debtor 2", a line in capitals, a larger line, a
// numbered question), else numbered _2; on forms built here and on three corpus forms read by eye.
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { AnalysedField } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

async function build(draw: (page: PDFPage, doc: PDFDocument, font: PDFFont, bold: PDFFont) => void) {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  draw(page, doc, font, bold);
  return doc.save();
}

const text = (page: PDFPage, font: PDFFont, s: string, x: number, y: number, size = 10) =>
  page.drawText(s, { x, y, size, font, color: rgb(0, 0, 0) });

async function keys(bytes: Uint8Array): Promise<Map<string, string | undefined>> {
  const a = await analyse(bytes, { maxLabelMs: 600_000 });
  return new Map(a.fields.map((f: AnalysedField) => [f.pdfMeta.originalName, f.suggestedName]));
}

describe('section-prefixed suggested keys (forms built here)', () => {
  it('prefixes a shared caption with the numbered party of its column', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      text(page, font, 'Debtor 1', 50, 760);
      text(page, font, 'Debtor 2', 320, 760);
      for (const [i, x] of [50, 320].entries()) {
        text(page, font, 'Street address', x, 730);
        form.createTextField(`street${i + 1}`).addToPage(page, { x: x + 80, y: 726, width: 150, height: 14, font });
        text(page, font, 'City', x, 700);
        form.createTextField(`city${i + 1}`).addToPage(page, { x: x + 80, y: 696, width: 150, height: 14, font });
      }
      text(page, font, 'Phone', 50, 670);
      form.createTextField('phone').addToPage(page, { x: 130, y: 666, width: 150, height: 14, font });
    });
    const k = await keys(bytes);
    expect(k.get('street1')).toBe('debtor_1_street_address');
    expect(k.get('street2')).toBe('debtor_2_street_address');
    expect(k.get('city1')).toBe('debtor_1_city');
    expect(k.get('city2')).toBe('debtor_2_city');
    expect(k.get('phone')).toBe('phone'); // a key nobody shares keeps no prefix
  });

  it('uses numbered parts and capital headings, the words before a colon only', async () => {
    const bytes = await build((page, doc, font, bold) => {
      const form = doc.getForm();
      text(page, bold, 'Part 1: About you', 50, 780);
      text(page, font, 'Name', 50, 750);
      form.createTextField('n1').addToPage(page, { x: 120, y: 746, width: 150, height: 14, font });
      text(page, bold, 'Part 2: About your employer', 50, 700);
      text(page, font, 'Name', 50, 670);
      form.createTextField('n2').addToPage(page, { x: 120, y: 666, width: 150, height: 14, font });
      text(page, bold, 'REPRÉSENTANT LÉGAL', 50, 620);
      text(page, font, 'Name', 50, 590);
      form.createTextField('n3').addToPage(page, { x: 120, y: 586, width: 150, height: 14, font });
    });
    const k = await keys(bytes);
    expect([k.get('n1'), k.get('n2'), k.get('n3')]).toEqual(['part_1_name', 'part_2_name', 'representant_legal_name']);
  });

  it('falls back to _2 when the fields share their section, or none is printed', async () => {
    const bytes = await build((page, doc, font) => {
      const form = doc.getForm();
      text(page, font, 'Date of birth', 50, 520);
      for (const [i, x] of [130, 160, 190].entries()) {
        if (i > 0) text(page, font, '/', x - 7, 520);
        form.createTextField(`d${i}`).addToPage(page, { x, y: 516, width: 22, height: 14, font });
      }
    });
    const k = await keys(bytes);
    expect(['d0', 'd1', 'd2'].map((n) => k.get(n))).toEqual(['date_of_birth', 'date_of_birth_2', 'date_of_birth_3']);
  });
});

const dir = corpusDir();

describe.skipIf(!dir)('section-prefixed suggested keys (corpus, checked on the rendered pages)', () => {
  const load = (f: string) => keys(new Uint8Array(fs.readFileSync(path.join(dir as string, 'pdfs', f))));

  it('Cerfa 10103: the employer, the apprentice and each of the two masters', async () => {
    const k = await load('france-cerfa-10103-14-contrat-apprentissage.pdf');
    expect(k.get('Zone de texte 8_8')).toBe('l_employeur_complement');
    expect(k.get('Zone de texte 8_21')).toBe('l_apprenti_e_complement');
    expect(k.get('Zone de texte 8_43')).toBe('maitre_d_apprentissage_1_prenom');
    expect(k.get('Zone de texte 8_47')).toBe('maitre_d_apprentissage_2_prenom');
    expect(k.get('Zone de texte 21_4')).toBe('maitre_1_date_de_naissance');
    expect(k.get('Zone de texte 8_81')).toBe('la_formation_complement');
  });

  it('B107: the two debtors of an address table, and the numbered questions', async () => {
    const k = await load('uscourts-b107-financial-affairs.pdf');
    expect(k.get('add1_D1_address')).toBe('debtor_1_street_address');
    expect(k.get('add1_D2_address')).toBe('debtor_2_street_address');
    expect(k.get('add1_D1_city')).toBe('debtor_1_city');
    expect(k.get('add1_D2_zip')).toBe('debtor_2_zip_code');
    expect(k.get('creditor1')).toBe('6_creditors_name');
    expect(k.get('insider1')).toBe('7_insiders_name');
    const all = [...k.values()];
    expect(new Set(all).size).toBe(all.length);
    for (const key of all) expect(key).toMatch(/^[a-z0-9_]{1,40}$/);
  });
});
