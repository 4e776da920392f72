// A page drawn in colour by poppler (pdftoppm), MuPDF (mutool draw) or pdf.js (its canvas renderer on
// @napi-rs/canvas), and the red or dark pixels inside a rectangle of it: enough to tell a value drawn
// red from one drawn black, and where on the page a value landed.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openWithPdfjs } from './pdfjs.js';

const run = promisify(execFile);

export type ColorRenderer = 'poppler' | 'mupdf' | 'pdf.js';

export interface RgbImage {
  width: number;
  height: number;
  /** three samples per pixel, row by row */
  rgb: Uint8Array;
}

/** Parses a binary PPM (P6, 8 bit). */
function parsePpm(buf: Buffer): RgbImage {
  const head = /^P6\s+(?:#.*\s+)*(\d+)\s+(\d+)\s+(\d+)\s/.exec(buf.toString('latin1', 0, 200));
  if (head?.[3] !== '255') throw new Error('not an 8-bit binary PPM');
  const [width, height] = [Number(head[1]), Number(head[2])];
  return { width, height, rgb: new Uint8Array(buf.subarray(head[0].length, head[0].length + width * height * 3)) };
}

async function pdfjsPage(file: string, page: number, dpi: number): Promise<RgbImage> {
  const doc = await openWithPdfjs(fs.readFileSync(file));
  try {
    const p = await doc.getPage(page);
    const viewport = p.getViewport({ scale: dpi / 72 });
    const factory = (doc as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
    const { canvas, context } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    await p.render({ canvasContext: context as never, viewport }).promise;
    const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0, j = 0; i < data.length; i += 4, j += 3) {
      // transparent canvas pixels are the white paper
      const a = data[i + 3] / 255;
      for (let k = 0; k < 3; k++) rgb[j + k] = Math.round(data[i + k] * a + 255 * (1 - a));
    }
    return { width, height, rgb };
  } finally {
    await doc.destroy();
  }
}

interface CanvasFactory {
  create(
    w: number,
    h: number,
  ): {
    canvas: { width: number; height: number };
    context: {
      getImageData(
        x: number,
        y: number,
        w: number,
        h: number,
      ): { data: Uint8ClampedArray; width: number; height: number };
    };
  };
}

/** Page `page` (1-based) of `file` drawn at `dpi` in RGB, /Rotate applied, annotations drawn. */
export async function renderRgb(renderer: ColorRenderer, file: string, page: number, dpi = 72): Promise<RgbImage> {
  if (renderer === 'pdf.js') return pdfjsPage(file, page, dpi);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rgb-'));
  try {
    const out = path.join(tmp, 'page.ppm');
    if (renderer === 'poppler') {
      const p = String(page);
      await run('pdftoppm', ['-r', String(dpi), '-f', p, '-l', p, '-singlefile', file, path.join(tmp, 'page')]);
    } else {
      await run('mutool', ['draw', '-q', '-r', String(dpi), '-c', 'rgb', '-o', out, file, String(page)]);
    }
    return parsePpm(fs.readFileSync(out));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export interface InkCount {
  /** clearly red: red channel high, green and blue low */
  red: number;
  /** dark and not red (black or grey text) */
  dark: number;
}

/** Red and dark pixels inside [x0, y0, x1, y1], in pixels of the image (origin top left). */
export function inkIn(img: RgbImage, rect: [number, number, number, number]): InkCount {
  const count: InkCount = { red: 0, dark: 0 };
  const [x0, x1] = [Math.max(0, Math.floor(rect[0])), Math.min(img.width, Math.ceil(rect[2]))];
  const [y0, y1] = [Math.max(0, Math.floor(rect[1])), Math.min(img.height, Math.ceil(rect[3]))];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * img.width + x) * 3;
      const [r, g, b] = [img.rgb[i], img.rgb[i + 1], img.rgb[i + 2]];
      if (r > 150 && g < 110 && b < 110) count.red++;
      else if (r < 110 && g < 110 && b < 110) count.dark++;
    }
  }
  return count;
}

/** A rectangle of an unrotated page [x0 y0 x1 y1] (PDF points) in pixels of that page drawn at `dpi`. */
export function pixelsOf(rect: number[], pageHeight: number, dpi = 72): [number, number, number, number] {
  const k = dpi / 72;
  return [rect[0] * k, (pageHeight - rect[3]) * k, rect[2] * k, (pageHeight - rect[1]) * k];
}
