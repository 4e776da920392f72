// Small forms that each show one class of form-fidelity defect (project issue 22), built with pdf-lib
// so the corpus stays untouched: number formats with JavaScript escapes and colours, a number comb,
// strings that need escaping (for qpdf to encrypt), NoRotate widgets on rotated pages, and a widget
// outside its page's boxes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFString,
  type PDFDict,
  type PDFPage,
  type PDFTextField,
} from '@cantoo/pdf-lib';

/** Gives the field a format action whose JavaScript is exactly `js` (hex string: no PDF escaping in the way). */
function setFormatScript(doc: PDFDocument, field: PDFTextField, js: string): void {
  const action = doc.context.obj({ S: 'JavaScript', JS: PDFHexString.fromText(js) });
  field.acroField.dict.set(PDFName.of('AA'), doc.context.obj({ F: action }));
}

function setDa(field: PDFTextField, da: string): void {
  field.acroField.dict.set(PDFName.of('DA'), PDFString.of(da));
}

/** The AFNumber fields of the amounts form: name -> [JavaScript of its format action, its /DA]. */
export const AMOUNT_FIELDS = {
  // negStyle 1 (red minus), currency written as a JavaScript \u escape, red /DA
  euro: [String.raw`AFNumber_Format(2, 0, 1, 0, "\u20ac ", true);`, '/Helv 12 Tf 1 0 0 rg'],
  // negStyle 3 (red parentheses), currency as a \x escape, black /DA
  pound: [String.raw`AFNumber_Format(2, 0, 3, 0, "\xa3", true);`, '/Helv 12 Tf 0 g'],
  // negStyle 0: no colour of its own, the red /DA stays
  plain: ['AFNumber_Format(2, 0, 0, 0, "", false);', '/Helv 12 Tf 1 0 0 rg'],
} as const;

/** Where each field of the amounts form sits on its 400 x 300 page. */
export const AMOUNT_RECTS: Record<string, [number, number, number, number]> = {
  euro: [40, 230, 340, 262],
  pound: [40, 180, 340, 212],
  plain: [40, 130, 340, 162],
  comb: [40, 60, 120, 92],
};

/**
 * One page of number fields (AMOUNT_FIELDS) and `comb`: a number field (AFNumber, no decimals, no
 * grouping) drawn as a comb of MaxLen 2.
 */
export async function amountsForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 300]);
  const form = doc.getForm();
  const place = (field: PDFTextField, name: string) => {
    const [x0, y0, x1, y1] = AMOUNT_RECTS[name];
    field.addToPage(page, { x: x0, y: y0, width: x1 - x0, height: y1 - y0, borderWidth: 0 });
  };
  for (const [name, [js, da]] of Object.entries(AMOUNT_FIELDS)) {
    const field = form.createTextField(name);
    place(field, name);
    setFormatScript(doc, field, js);
    setDa(field, da);
  }
  const comb = form.createTextField('comb');
  comb.setMaxLength(2);
  comb.enableCombing();
  place(comb, 'comb');
  setFormatScript(doc, comb, 'AFNumber_Format(0, 1, 0, 0, "", false);');
  setDa(comb, '/Helv 14 Tf 0 g');
  return doc.save();
}

/** A PDF literal string body for `bytes`: \ ( ) and the line-end bytes escaped, every other byte as it is. */
function literalBody(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x5c || b === 0x28 || b === 0x29) out += `\\${String.fromCharCode(b)}`;
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x0a) out += '\\n';
    else out += String.fromCharCode(b);
  }
  return out;
}

const literal = (bytes: Uint8Array) => PDFString.of(literalBody(bytes));

const utf16be = (text: string) => {
  const out = [0xfe, 0xff];
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i) >> 8, text.charCodeAt(i) & 0xff);
  return new Uint8Array(out);
};
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

/**
 * Field names and values that need escaping in a literal string: a backslash before an ordinary
 * character, parentheses, a trailing backslash, and UTF-16 text whose bytes include 0x5C and 0x28
 * (小 is U+5C0F). Keys are the full names, values the text each field holds.
 */
export const ESCAPED_FIELDS: Record<string, string> = {
  'Sec\\.A': 'a \\n is not a newline',
  'Total (net)': '(12) left',
  'Path\\': 'C:\\forms\\',
  '小(名)': '名前 (小) \\',
};

/**
 * A one-page form whose field names (/T), values (/V), tooltips (/TU) and info strings are written
 * as literal ( ) strings, as LiveCycle writes them, with ESCAPED_FIELDS' names and values. The last
 * object written is the catalog's neighbour: a string that swallowed what follows it would take the
 * rest of the file with it. Encrypt it with qpdf (qpdf keeps literal strings literal).
 */
export async function escapedStringsForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([400, 300]);
  const form = doc.getForm();
  let y = 240;
  for (const [name, value] of Object.entries(ESCAPED_FIELDS)) {
    const field = form.createTextField(`f${y}`);
    field.addToPage(page, { x: 40, y, width: 320, height: 24, borderWidth: 0 });
    const dict = field.acroField.dict;
    const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);
    dict.set(PDFName.of('T'), literal(isAscii(name) ? latin1(name) : utf16be(name)));
    dict.set(PDFName.of('TU'), literal(latin1(`tip ${isAscii(name) ? name : 'utf16'}\\`)));
    dict.set(PDFName.of('V'), literal(isAscii(value) ? latin1(value) : utf16be(value)));
    dict.set(PDFName.of('DA'), PDFString.of('/Helv 10 Tf 0 g'));
    y -= 50;
  }
  doc.setTitle('Escapes \\ ( ) test\\');
  return doc.save({ updateFieldAppearances: true, useObjectStreams: false });
}

const PRINT = 4;
const NO_ROTATE = 16;

/** A field's widget dictionary (the fields built here have one each). */
const widgetOf = (field: PDFTextField): PDFDict => field.acroField.getWidgets()[0].dict;

/** Where the NoRotate forms put their fields (page 400 x 300 before /Rotate). */
export const NOROTATE_RECT: [number, number, number, number] = [150, 150, 250, 174];
export const PLAIN_RECT: [number, number, number, number] = [40, 40, 240, 64];

/**
 * One page per rotation in `rotations`, each with `upright<R>`, a NoRotate text field, and `turned<R>`,
 * an ordinary one that turns with the page. Both print.
 */
export async function noRotateForm(rotations: number[] = [90, 180, 270]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const form = doc.getForm();
  for (const rotation of rotations) {
    const page: PDFPage = doc.addPage([400, 300]);
    page.node.set(PDFName.of('Rotate'), PDFNumber.of(rotation));
    for (const [name, rect, flags] of [
      [`upright${rotation}`, NOROTATE_RECT, PRINT | NO_ROTATE],
      [`turned${rotation}`, PLAIN_RECT, PRINT],
    ] as const) {
      const field = form.createTextField(name);
      field.addToPage(page, {
        x: rect[0],
        y: rect[1],
        width: rect[2] - rect[0],
        height: rect[3] - rect[1],
        borderWidth: 0,
      });
      setDa(field, '/Helv 16 Tf 0 g');
      widgetOf(field).set(PDFName.of('F'), PDFNumber.of(flags));
    }
  }
  return doc.save();
}

/**
 * A 400 x 300 page whose CropBox is its left half, with `inside` (on the crop box), `cropped`
 * (on the media box but right of the crop box), `offPage` (wholly outside the media box) and
 * `straddling` (partly on the crop box: still visible).
 */
export async function outsideBoxesForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 300]);
  page.setCropBox(0, 0, 200, 300);
  const form = doc.getForm();
  const fields: [string, number, number][] = [
    ['inside', 20, 200],
    ['cropped', 250, 200],
    ['offPage', 450, 200],
    ['straddling', 150, 100],
  ];
  for (const [name, x, y] of fields) {
    const field = form.createTextField(name);
    field.addToPage(page, { x, y, width: 120, height: 24, borderWidth: 0 });
  }
  return doc.save();
}

/** qpdf --encrypt arguments of each scheme the engine opens with the empty user password. */
export const ENCRYPTIONS = {
  'RC4 40': ['40'],
  'RC4 128': ['128', '--use-aes=n'],
  'AES-128': ['128', '--use-aes=y'],
  'AES-256': ['256'],
} as const;

/**
 * Encrypts `pdf` with qpdf (empty user password, objects outside object streams), then rewrites
 * every string outside streams as a literal ( ) string, as LiveCycle writes encrypted forms (qpdf
 * itself writes them in hex), and rebuilds the cross-reference table for the new offsets. The
 * catalog and the page tree root swap object numbers (neither holds a string, so decryption keys do
 * not change): the catalog then follows the document info, as in LiveCycle files, where a string
 * that swallows what follows it takes the catalog too.
 */
export function encryptWithLiteralStrings(pdf: Uint8Array, scheme: keyof typeof ENCRYPTIONS, tmp: string): Buffer {
  const [input, output] = [path.join(tmp, 'plain.pdf'), path.join(tmp, 'encrypted.pdf')];
  fs.writeFileSync(input, pdf);
  const args = ['--allow-weak-crypto', '--object-streams=disable', '--encrypt', '', 'owner', ...ENCRYPTIONS[scheme]];
  execFileSync('qpdf', [...args, '--', input, output]);
  const text = fs.readFileSync(output).toString('latin1');
  const header = text.slice(0, text.indexOf('1 0 obj'));
  const trailerAt = text.lastIndexOf('\nxref\n') + 1;
  const objects = [...text.slice(header.length, trailerAt).matchAll(/(\d+) 0 obj\n([\s\S]*?)\nendobj\n/g)];
  const numberOf = (type: string) => Number(objects.find(([, , body]) => body.includes(`/Type /${type} `))![1]);
  const [catalog, pages] = [numberOf('Catalog'), numberOf('Pages')];
  const swap = (n: number) => (n === catalog ? pages : n === pages ? catalog : n);
  const swapRefs = (s: string) => s.replace(/\b(\d+) 0 R\b/g, (_all, n: string) => `${swap(Number(n))} 0 R`);
  const bodies = new Map<number, string>();
  for (const [, num, body] of objects) {
    const streamAt = body.search(/\bstream\r?\n/);
    const dict = streamAt < 0 ? body : body.slice(0, streamAt);
    const rest = streamAt < 0 ? '' : body.slice(streamAt);
    const literals = dict.replace(/(?<![<>])<([0-9a-fA-F\s]*)>(?!>)/g, (_all, hex: string) => {
      const digits = hex.replace(/\s+/g, '');
      return `(${literalBody(Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex'))})`;
    });
    bodies.set(swap(Number(num)), swapRefs(literals) + rest);
  }
  let out = header;
  const offsets = new Map<number, number>();
  for (const num of [...bodies.keys()].sort((a, b) => a - b)) {
    offsets.set(num, out.length);
    out += `${num} 0 obj\n${bodies.get(num)}\nendobj\n`;
  }
  const size = Math.max(...offsets.keys()) + 1;
  const trailer = swapRefs(/trailer\s*(<<[\s\S]*?>>)\s*startxref/.exec(text.slice(trailerAt))![1]);
  const xrefAt = out.length;
  out += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let i = 1; i < size; i++) {
    const at = offsets.get(i);
    out += at === undefined ? '0000000000 65535 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`;
  }
  out += `trailer ${trailer}\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
