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
