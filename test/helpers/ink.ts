// Counts dark pixels inside a rectangle of a rendered page, with poppler (pdftoppm) or MuPDF
// (mutool draw): did a viewer put ink where a widget is? Pages render at 72 dpi in grey, so one
// pixel is one point; the rectangle is in PDF user space of an unrotated page with origin 0 0.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Renderer = 'poppler' | 'mupdf';

interface Gray {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** A binary PGM (P5, maxval 255). */
export function parsePgm(buf: Buffer): Gray {
  const fields: string[] = [];
  let i = 2; // after "P5"
  if (buf.toString('latin1', 0, 2) !== 'P5') throw new Error('not a binary PGM');
  while (fields.length < 3) {
    while (/\s/.test(String.fromCharCode(buf[i]))) i++;
    if (buf[i] === 0x23) {
      while (buf[i] !== 0x0a) i++;
      continue;
    }
    let tok = '';
    while (!/\s/.test(String.fromCharCode(buf[i]))) tok += String.fromCharCode(buf[i++]);
    fields.push(tok);
  }
  const [width, height] = fields.map(Number);
  return { width, height, pixels: new Uint8Array(buf.subarray(i + 1, i + 1 + width * height)) };
}

/** Renders one page (1-based) at 72 dpi in grey. */
export async function renderGray(pdf: string, page: number, renderer: Renderer): Promise<Gray> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ink-'));
  try {
    const out = path.join(tmp, 'page.pgm');
    if (renderer === 'poppler') {
      await run('pdftoppm', ['-r', '72', '-gray', '-f', String(page), '-l', String(page), '-singlefile', pdf, path.join(tmp, 'page')]);
    } else {
      await run('mutool', ['draw', '-q', '-r', '72', '-c', 'gray', '-F', 'pgm', '-o', out, pdf, String(page)]);
    }
    return parsePgm(fs.readFileSync(out));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Pixels darker than mid-grey inside [x1 y1 x2 y2] (PDF points), shrunk by `inset` points on each side. */
export function inkIn(img: Gray, rect: number[], inset = 0): number {
  const [x1, y1, x2, y2] = [Math.min(rect[0], rect[2]), Math.min(rect[1], rect[3]), Math.max(rect[0], rect[2]), Math.max(rect[1], rect[3])];
  let dark = 0;
  for (let y = Math.ceil(img.height - y2 + inset); y < Math.floor(img.height - y1 - inset); y++) {
    for (let x = Math.ceil(x1 + inset); x < Math.floor(x2 - inset); x++) {
      if (y >= 0 && y < img.height && x >= 0 && x < img.width && img.pixels[y * img.width + x] < 128) dark++;
    }
  }
  return dark;
}
