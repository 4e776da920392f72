// Hostile flat PDFs for field detection: many pages, a page of 100,000 path segments, a page of nothing
// but tiny squares, text drawn glyph by glyph. No AcroForm: they reach detection, not the analyser.
import { buildPdf } from './hostile-pdfs.js';

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** A PDF without a form whose pages have the given content streams (one Helvetica font, /F1). */
export function flatPdf(contents: string[]): Buffer {
  const objs: (string | Buffer)[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', FONT];
  const kids: string[] = [];
  for (const content of contents) {
    const data = Buffer.from(content, 'latin1');
    objs.push(Buffer.concat([Buffer.from(`<< /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]));
    const streamRef = objs.length;
    objs.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${streamRef} 0 R >>`,
    );
    kids.push(`${objs.length} 0 R`);
  }
  objs[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  return buildPdf(objs);
}

/** A captioned writing line: what each page of the long PDF holds. */
const LINE_PAGE = 'BT /F1 10 Tf 50 703 Td (Name:) Tj ET 0.8 w 85 700 m 300 700 l S';

export const manyFlatPages = (n: number) => flatPdf(Array.from({ length: n }, () => LINE_PAGE));

/** One page of `n` short horizontal strokes, all painted at once. */
export function manySegments(n: number): Buffer {
  const ops: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = 20 + (i % 100) * 5.7;
    const y = 20 + Math.floor(i / 100) * 0.75;
    ops.push(`${x.toFixed(2)} ${y.toFixed(2)} m ${(x + 4).toFixed(2)} ${y.toFixed(2)} l`);
  }
  return flatPdf([`0.2 w ${ops.join(' ')} S`]);
}

/** One page of nothing but small squares, a little apart (not combs): `n` check box look-alikes. */
export function tinySquares(n: number): Buffer {
  const ops: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = 10 + (i % 70) * 8.4;
    const y = 10 + Math.floor(i / 70) * 8.4;
    ops.push(`${x.toFixed(1)} ${y.toFixed(1)} 6 6 re`);
  }
  return flatPdf([`0.5 w ${ops.join(' ')} S`]);
}

/** One page whose text is drawn one glyph at a time, each placed by its own text matrix, under lines. */
export function glyphByGlyph(glyphs: number): Buffer {
  const ops: string[] = ['BT /F1 9 Tf'];
  const word = 'Nom et prenom ';
  for (let i = 0; i < glyphs; i++) {
    const x = 20 + (i % 110) * 5;
    const y = 780 - Math.floor(i / 110) * 11;
    ops.push(`1 0 0 1 ${x} ${y} Tm (${word[i % word.length]}) Tj`);
  }
  ops.push('ET');
  return flatPdf([`${ops.join('\n')}\n0.8 w 40 30 m 400 30 l S`]);
}
