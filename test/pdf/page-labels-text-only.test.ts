// The content pdf.js reads for captions keeps every operator that places text and drops what only
// draws (text-only-pages.ts); the captions found are the same as on the file itself.
import { PDFDocument, StandardFonts, rgb } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { textOperators } from '../../src/pdf/analysis/text-only-pages.js';

const scan = (s: string) => Buffer.from(textOperators(Buffer.from(s, 'latin1'))).toString('latin1');

describe('text operators of a content stream', () => {
  it('keeps text objects, the state stack and XObjects with their operands; drops paths and colours', () => {
    const content = [
      '0.5 g 10 10 100 20 re f',
      'q 1 0 0 1 5 5 cm /GS1 gs',
      "BT /F1 10 Tf 1 0 0 1 20 30 Tm (Name:) Tj [(A) -120 (B)] TJ 0 -12 Td (x) ' ET",
      'Q',
      '/Fm0 Do 0 0 m 10 10 l S',
    ].join('\n');
    expect(scan(content)).toBe(
      [
        'q',
        '1 0 0 1 5 5 cm',
        '/GS1 gs',
        'BT',
        '/F1 10 Tf',
        '1 0 0 1 20 30 Tm',
        '(Name:) Tj',
        '[(A) -120 (B)] TJ',
        '0 -12 Td',
        "(x) '",
        'ET',
        'Q',
        '/Fm0 Do',
        '',
      ].join('\n'),
    );
  });

  it('reads strings, hex strings, dictionaries and comments as operands, never as operators', () => {
    expect(scan('BT (a Tj \\) re (f) Q) Tj <48 49> Tj ET % q BT ET')).toBe(
      'BT\n(a Tj \\) re (f) Q) Tj\n<48 49> Tj\nET\n',
    );
    expect(scan('/Span << /ActualText (x) /MCID 3 >> BDC BT (y) Tj ET EMC')).toBe(
      '/Span << /ActualText (x) /MCID 3 >> BDC\nBT\n(y) Tj\nET\nEMC\n',
    );
  });

  it('skips an inline image, whatever its data holds', () => {
    expect(scan('BI /W 2 /H 1 /BPC 8 /CS /G ID \x00BT\xff (Tj) EI q Q BT (z) Tj ET')).toBe('BT\n(z) Tj\nET\n');
  });

  it('leaves out a group or marked sequence without text, and keeps one that has some, nested or not', () => {
    expect(scan('q 2 0 0 2 0 0 cm /GS0 gs q 1 g Q Q /OC BMC EMC BT (t) Tj ET')).toBe('BT\n(t) Tj\nET\n');
    expect(scan('q 2 0 0 2 0 0 cm q /Im1 Do Q Q')).toBe('q\n2 0 0 2 0 0 cm\nq\n/Im1 Do\nQ\nQ\n');
    // a marked sequence closed inside a group it opened outside of: everything kept
    expect(scan('/P BMC q EMC Q')).toBe('/P BMC\nq\nEMC\nQ\n');
  });
});

describe('captions read on the text-only content', () => {
  it('finds a caption drawn among thousands of path operators', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([400, 300]);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 2000; i++)
      page.drawLine({ start: { x: i % 400, y: 10 }, end: { x: i % 400, y: 20 }, thickness: 0.1, color: rgb(0, 0, 0) });
    page.drawText('Surname:', { x: 20, y: 200, size: 10, font });
    doc.getForm().createTextField('s').addToPage(page, { x: 80, y: 196, width: 150, height: 14, font });
    const [field] = (await analyse(await doc.save(), { maxLabelMs: 600_000 })).fields;
    expect(field).toMatchObject({ label: 'Surname', labelSource: 'page' });
  });
});
