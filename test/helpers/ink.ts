// Pages drawn by poppler (pdftoppm) and MuPDF (mutool draw) as grey PGM images, reduced to one
// number per page: how many pixels are dark. Parsing PGM (P5, 8 or 16 bit) is done here in plain
// Node, so no image library is needed.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAX_BUFFER = 64 * 1024 * 1024;

export interface Pgm {
  width: number;
  height: number;
  maxval: number;
  /** one sample per pixel, scaled to 0..255 */
  pixels: Uint8Array;
}

/** Parses a binary PGM (P5) image; throws on anything else. */
export function parsePgm(buf: Buffer): Pgm {
  let pos = 0;
  const token = (): string => {
    // skip whitespace and # comments between header tokens
    for (;;) {
      while (pos < buf.length && /\s/.test(String.fromCharCode(buf[pos]))) pos++;
      if (buf[pos] !== 0x23) break;
      while (pos < buf.length && buf[pos] !== 0x0a) pos++;
    }
    const start = pos;
    while (pos < buf.length && !/\s/.test(String.fromCharCode(buf[pos]))) pos++;
    return buf.toString('latin1', start, pos);
  };
  const magic = token();
  if (magic !== 'P5') throw new Error(`not a binary PGM (magic ${JSON.stringify(magic)})`);
  const width = Number(token());
  const height = Number(token());
  const maxval = Number(token());
  pos++; // the single whitespace byte before the raster
  if (!(width > 0 && height > 0 && maxval > 0 && maxval < 65536)) throw new Error('bad PGM header');
  const n = width * height;
  const wide = maxval > 255;
  if (buf.length - pos < n * (wide ? 2 : 1)) throw new Error('truncated PGM raster');
  const pixels = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = wide ? buf.readUInt16BE(pos + 2 * i) : buf[pos + i];
    pixels[i] = Math.round((v * 255) / maxval);
  }
  return { width, height, maxval, pixels };
}

/** A pixel counts as ink when it is darker than this (0 black .. 255 white). */
export const DARK = 160;

/** Number of pixels darker than `threshold`. */
export function darkPixels(img: Pgm, threshold = DARK): number {
  let n = 0;
  for (const v of img.pixels) if (v < threshold) n++;
  return n;
}

/** darkPixels outside the given pixel rectangles [x0 y0 x1 y1] (any corner order). */
export function darkPixelsOutside(img: Pgm, rects: [number, number, number, number][], threshold = DARK): number {
  const boxes = rects.map((r) => [
    Math.min(r[0], r[2]),
    Math.min(r[1], r[3]),
    Math.max(r[0], r[2]),
    Math.max(r[1], r[3]),
  ]);
  let n = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (img.pixels[y * img.width + x] >= threshold) continue;
      if (!boxes.some(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1)) n++;
    }
  }
  return n;
}

export type Renderer = 'poppler' | 'mupdf';

/** Page numbers in file names like out-03.pgm (pdftoppm) or out3.pgm (mutool), in page order. */
function pagesIn(dir: string, prefix: string): Map<number, string> {
  const pages = new Map<number, string>();
  for (const f of fs.readdirSync(dir)) {
    const m = new RegExp(`^${prefix}-?(\\d+)\\.pgm$`).exec(f);
    if (m) pages.set(Number(m[1]), path.join(dir, f));
  }
  return new Map([...pages].sort((a, b) => a[0] - b[0]));
}

/**
 * mutool run script: IN OUT MODE -> a decrypted copy of IN whose pages keep no annotations (MODE
 * "none") or every annotation but signature widgets (MODE "no-signatures"; FT looked up the /Parent chain).
 */
const STRIP_ANNOTS = `var doc = new PDFDocument(scriptArgs[0]);
if (doc.needsPassword()) doc.authenticatePassword('');
var isName = function (o) { return !!o && typeof o.isName === 'function' && o.isName(); };
var isDict = function (o) { return !!o && typeof o.isDictionary === 'function' && o.isDictionary(); };
for (var i = 0, n = doc.countPages(); i < n; i++) {
  var page = doc.findPage(i);
  if (scriptArgs[2] === 'none') { page.delete('Annots'); continue; }
  var annots = page.get('Annots');
  if (!annots || !annots.isArray()) continue;
  for (var j = annots.length - 1; j >= 0; j--) {
    var a = annots.get(j);
    if (!isDict(a)) continue;
    var ft = a.get('FT'), p = a.get('Parent');
    for (var d = 0; !isName(ft) && isDict(p) && d < 32; d++) { ft = p.get('FT'); p = p.get('Parent'); }
    if (isName(ft) && ft.asName() == 'Sig') annots.delete(j);
  }
}
doc.save(scriptArgs[1], 'decrypt');
`;

/**
 * Which annotations a drawing shows: all, none (the pages' own content), or all but signature
 * widgets. The last is for MuPDF, which decorates an unsigned signature widget with a red "sign
 * here" tag of its own (not part of the file, so never flattened); poppler adds nothing and draws all.
 */
export type AnnotationMode = 'all' | 'none' | 'no-signatures';

/**
 * Draws every page of `pdf` at `dpi` in grey with one renderer into `dir` (index 0 is page 1). With
 * `annotations: 'none'` only the pages' own content is drawn (poppler: -hide-annotations; MuPDF has
 * no such switch, so it draws a copy without /Annots). Pages a renderer could not produce are missing.
 */
export async function renderPages(
  renderer: Renderer,
  pdf: string,
  dir: string,
  opts: { dpi?: number; annotations?: AnnotationMode } = {},
): Promise<Pgm[]> {
  const dpi = String(opts.dpi ?? 36);
  const annotations = opts.annotations ?? 'all';
  fs.mkdirSync(dir, { recursive: true });
  const prefix = renderer === 'poppler' ? 'pp' : 'mu';
  if (renderer === 'poppler') {
    const args = [
      '-r',
      dpi,
      '-gray',
      ...(annotations === 'none' ? ['-hide-annotations'] : []),
      pdf,
      path.join(dir, prefix),
    ];
    await run('pdftoppm', args, { maxBuffer: MAX_BUFFER });
  } else {
    let input = pdf;
    if (annotations !== 'all') {
      const script = path.join(dir, 'strip-annots.js');
      fs.writeFileSync(script, STRIP_ANNOTS);
      input = path.join(dir, `${annotations}.pdf`);
      await run('mutool', ['run', script, pdf, input, annotations], { maxBuffer: MAX_BUFFER });
    }
    // -q: MuPDF's warnings about odd input go to stderr and do not change the exit code
    await run('mutool', ['draw', '-q', '-r', dpi, '-c', 'gray', '-o', path.join(dir, `${prefix}%d.pgm`), input], {
      maxBuffer: MAX_BUFFER,
    });
  }
  const out: Pgm[] = [];
  for (const [page, file] of pagesIn(dir, prefix)) out[page - 1] = parsePgm(fs.readFileSync(file));
  return out;
}

/**
 * How much two drawings of the same page differ inside a rectangle given in pixels [x0, y0, x1, y1]
 * (clipped to the images): the sum of |a - b| over its pixels, and the number of pixels.
 */
export function changeIn(a: Pgm, b: Pgm, rect: [number, number, number, number]): { change: number; pixels: number } {
  const w = Math.min(a.width, b.width);
  const h = Math.min(a.height, b.height);
  const x0 = Math.max(0, Math.floor(Math.min(rect[0], rect[2])));
  const x1 = Math.min(w, Math.ceil(Math.max(rect[0], rect[2])));
  const y0 = Math.max(0, Math.floor(Math.min(rect[1], rect[3])));
  const y1 = Math.min(h, Math.ceil(Math.max(rect[1], rect[3])));
  let change = 0;
  let pixels = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      change += Math.abs(a.pixels[y * a.width + x] - b.pixels[y * b.width + x]);
      pixels++;
    }
  }
  return { change, pixels };
}

/** Renders one page (1-based) at 72 dpi in grey, so one pixel is one point. */
export async function renderGray(pdf: string, page: number, renderer: Renderer): Promise<Pgm> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ink-'));
  try {
    const img = (await renderPages(renderer, pdf, tmp, { dpi: 72 }))[page - 1];
    if (!img) throw new Error(`${renderer} drew no page ${page} of ${pdf}`);
    return img;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Pixels darker than mid-grey inside [x1 y1 x2 y2] (PDF points of an unrotated page with origin
 * 0 0, on a 72 dpi render), shrunk by `inset` points on each side.
 */
export function inkIn(img: Pgm, rect: number[], inset = 0): number {
  const [x1, y1, x2, y2] = [
    Math.min(rect[0], rect[2]),
    Math.min(rect[1], rect[3]),
    Math.max(rect[0], rect[2]),
    Math.max(rect[1], rect[3]),
  ];
  let dark = 0;
  for (let y = Math.ceil(img.height - y2 + inset); y < Math.floor(img.height - y1 - inset); y++) {
    for (let x = Math.ceil(x1 + inset); x < Math.floor(x2 - inset); x++) {
      if (y >= 0 && y < img.height && x >= 0 && x < img.width && img.pixels[y * img.width + x] < 128) dark++;
    }
  }
  return dark;
}
