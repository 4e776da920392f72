// Flat PDFs built for detection tests: printed forms with no AcroForm (lines, boxes, squares, a comb),
// a page that is only a picture (a scan), and a form that has one field and misses another.
import { PDFDocument, StandardFonts, rgb, type PDFPage, type PDFFont } from '@cantoo/pdf-lib';

const black = rgb(0, 0, 0);

/** A writing line with its caption on the left. */
function captionedLine(page: PDFPage, font: PDFFont, caption: string, y: number, x = 60, length = 260) {
  page.drawText(caption, { x, y: y + 3, size: 10, font });
  const start = x + font.widthOfTextAtSize(caption, 10) + 6;
  page.drawLine({ start: { x: start, y }, end: { x: start + length, y }, thickness: 0.8, color: black });
}

/** One page of a printed form: name and city lines, an address box, a yes check box, a 5-cell comb, a date, a signature line. */
export async function printedForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('DECLARATION DE SITUATION', { x: 60, y: 780, size: 16, font });
  captionedLine(page, font, 'Nom :', 720);
  captionedLine(page, font, 'Ville :', 690);
  // a box under its caption
  page.drawText('Adresse', { x: 60, y: 655, size: 10, font });
  page.drawRectangle({ x: 60, y: 590, width: 300, height: 60, borderColor: black, borderWidth: 0.8 });
  // a check box and its words
  page.drawRectangle({ x: 60, y: 550, width: 10, height: 10, borderColor: black, borderWidth: 0.8 });
  page.drawText("J'accepte les conditions", { x: 76, y: 551, size: 10, font });
  // a comb of five cells
  page.drawText('Code postal', { x: 60, y: 513, size: 10, font });
  for (let i = 0; i < 5; i++)
    page.drawRectangle({ x: 130 + i * 16, y: 508, width: 16, height: 18, borderColor: black, borderWidth: 0.8 });
  // a date written on a line, with its placeholder
  page.drawText('Date de naissance :', { x: 60, y: 473, size: 10, font });
  page.drawText('JJ/MM/AAAA', { x: 170, y: 473, size: 10, font, color: rgb(0.6, 0.6, 0.6) });
  page.drawRectangle({ x: 165, y: 468, width: 90, height: 18, borderColor: black, borderWidth: 0.8 });
  captionedLine(page, font, 'Signature', 400, 320, 200);
  return doc.save();
}

/**
 * One page drawn the ways tax and coloured forms draw: a white box with no border on a tinted ground, an
 * amount row (line number, dollars, cents), a row of boxes open on top ("| 8b | dollars | cents"), two
 * stacked numbered boxes before their options, and a table whose headings have room under and after them.
 */
export async function taxStyleForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const box = (x: number, y: number, width: number, height: number) =>
    page.drawRectangle({ x, y, width, height, borderColor: black, borderWidth: 0.5 });
  // a tinted ground and a white box on it, under its caption
  page.drawRectangle({ x: 40, y: 600, width: 500, height: 200, color: rgb(0.9, 0.85, 0.75) });
  page.drawText('Email', { x: 60, y: 725, size: 9, font });
  page.drawRectangle({ x: 60, y: 700, width: 200, height: 20, color: rgb(1, 1, 1) });
  // an amount row: its number, the dollars, the cents
  page.drawText('7  Wages, salaries, tips', { x: 60, y: 543, size: 9, font });
  box(300, 540, 20, 12);
  page.drawText('7', { x: 306, y: 543, size: 8, font });
  box(320, 540, 72, 12);
  box(392, 540, 22, 12);
  // boxes open on top: a bottom line and four sides rising 12 pt
  page.drawText('b  Tax-exempt interest', { x: 60, y: 503, size: 9, font });
  page.drawLine({ start: { x: 200, y: 500 }, end: { x: 322, y: 500 }, thickness: 0.5, color: black });
  for (const x of [200, 220, 300, 322])
    page.drawLine({ start: { x, y: 500 }, end: { x, y: 512 }, thickness: 0.5, color: black });
  page.drawText('8b', { x: 204, y: 503, size: 8, font });
  // two numbered boxes stacked, each before its option
  box(60, 440, 12, 10);
  box(72, 440, 30, 10);
  box(60, 430, 12, 10);
  box(72, 430, 30, 10);
  page.drawText('1', { x: 64, y: 442, size: 7, font });
  page.drawText('Pass', { x: 76, y: 442, size: 7, font });
  page.drawText('2', { x: 64, y: 432, size: 7, font });
  page.drawText('Fail', { x: 76, y: 432, size: 7, font });
  // a table: headings over an empty row, the row's name before its empty box
  box(60, 380, 100, 30);
  box(160, 380, 100, 30);
  page.drawText('Province', { x: 64, y: 400, size: 9, font });
  page.drawText('Sales ($)', { x: 164, y: 400, size: 9, font });
  box(60, 365, 100, 15);
  box(160, 365, 100, 15);
  page.drawText('Alberta', { x: 64, y: 369, size: 9, font });
  return doc.save();
}

/** A one-page PDF whose page is only an image (a scan without text). */
export async function scannedPage(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  // a tiny grey PNG, stretched over the page
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAAAAABX3VL4AAAADklEQVR4nGNgYGBgYAAAAAUAAXpeqz8AAAAASUVORK5CYII=',
    'base64',
  );
  const image = await doc.embedPng(png);
  page.drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  return doc.save();
}

/** A form with a field on its first line and a second line left without one. */
export async function halfForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  captionedLine(page, font, 'Name:', 720);
  captionedLine(page, font, 'Employer:', 680);
  const start = 60 + font.widthOfTextAtSize('Name:', 10) + 6;
  doc.getForm().createTextField('name').addToPage(page, { x: start, y: 720.5, width: 260, height: 16, borderWidth: 0 });
  return doc.save();
}
