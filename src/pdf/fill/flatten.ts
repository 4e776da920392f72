// Flattening: every widget a viewer would print has its current appearance drawn into its page (the
// template's appearances as Form XObjects, the values this render drew as operators inline), then all
// widgets leave /Annots and the catalog loses /AcroForm, so no interactive field remains while every
// printed value stays visible. Widgets without the Print flag, or Hidden or NoView (a "Print / Save /
// Reset" button bar), vanish as they do on paper (PDF 32000-1, 12.5.3). A NoRotate widget on a rotated
// page is drawn upright as viewers show it: turned against /Rotate about its upper-left corner.
import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import { arraysFor, matrixFor } from '../appearance/appearance-stream.js';
import { num } from '../content-ops.js';
import { N, getDict, getNumbers, setChanged } from '../pdf-objects.js';
import type { DrawnAppearance, FillContext } from './fill-context.js';
import { isNoRotate, isPrinted } from './widget-flags.js';
import { pageRotation } from '../page-geometry.js';
import type { PageNode } from '../pages.js';
import type { PageWriter } from '../writer/page-content.js';

type Matrix = [number, number, number, number, number, number];

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/**
 * The cm that places a Form XObject on its annotation rectangle (PDF 32000-1, 12.5.5): the
 * BBox transformed by the form's Matrix is scaled and moved onto /Rect. Do applies Matrix itself.
 */
function placement(rect: number[], bbox: number[], matrix: Matrix): Matrix | undefined {
  const pts = [
    apply(matrix, bbox[0], bbox[1]),
    apply(matrix, bbox[2], bbox[1]),
    apply(matrix, bbox[0], bbox[3]),
    apply(matrix, bbox[2], bbox[3]),
  ];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const [bx0, bx1, by0, by1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [rx0, rx1] = [Math.min(rect[0], rect[2]), Math.max(rect[0], rect[2])];
  const [ry0, ry1] = [Math.min(rect[1], rect[3]), Math.max(rect[1], rect[3])];
  if (bx1 - bx0 <= 0 || by1 - by0 <= 0) return undefined;
  const sx = (rx1 - rx0) / (bx1 - bx0);
  const sy = (ry1 - ry0) / (by1 - by0);
  return [sx, 0, 0, sy, rx0 - bx0 * sx, ry0 - by0 * sy];
}

/** The normal appearance for the widget's /AS state, with its reference when it is indirect. */
function appearanceOf(widget: PDFDict): { stream: PDFStream; ref?: PDFRef } | undefined {
  const ap = getDict(widget, 'AP');
  if (!ap) return undefined;
  let raw = ap.get(N('N'));
  let obj = ap.lookup(N('N'));
  if (obj instanceof PDFDict) {
    const as = widget.lookup(N('AS'));
    if (!(as instanceof PDFName)) return undefined;
    raw = obj.get(as);
    obj = obj.lookup(as);
  }
  if (!(obj instanceof PDFStream)) return undefined;
  return { stream: obj, ref: raw instanceof PDFRef ? raw : undefined };
}

/**
 * The cm operands placing a widget's appearance, per template (fill-fields.ts FieldIndex): valid while
 * the appearance has the same /BBox and /Matrix objects. No engine step writes /Rect, /BBox or
 * /Matrix, and a render's new appearances share theirs per widget box (appearance-stream.ts).
 */
export type PlacementCache = WeakMap<PDFDict, { bbox: unknown; matrix: unknown; cm: string | null; clip?: string }>;

function placementOf(
  widget: PDFDict,
  key: { bbox: unknown; matrix: unknown },
  geometry: () => { bbox?: number[]; matrix?: number[] },
  cache: PlacementCache,
): string | null {
  const hit = cache.get(widget);
  if (hit && hit.bbox === key.bbox && hit.matrix === key.matrix) return hit.cm;
  const rect = getNumbers(widget, 'Rect');
  const { bbox, matrix: m } = geometry();
  const matrix = (m && m.length === 6 ? m : [1, 0, 0, 1, 0, 0]) as Matrix;
  const cm = rect?.length === 4 && bbox?.length === 4 ? placement(rect, bbox, matrix) : undefined;
  const text = cm ? cm.map(num).join(' ') : null;
  cache.set(widget, { bbox: key.bbox, matrix: key.matrix, cm: text });
  return text;
}

/** A template's appearance: its Form XObject drawn with Do. */
function drawStream(
  fc: FillContext,
  writer: PageWriter,
  page: PDFDict,
  widget: PDFDict,
  cache: PlacementCache,
  turn: string,
): void {
  const ap = appearanceOf(widget);
  if (!ap) return;
  const { stream } = ap;
  const key = { bbox: stream.dict.get(N('BBox')), matrix: stream.dict.get(N('Matrix')) };
  const cm = placementOf(
    widget,
    key,
    () => ({ bbox: getNumbers(stream.dict, 'BBox'), matrix: getNumbers(stream.dict, 'Matrix') }),
    cache,
  );
  if (!cm) return;
  // Some producers omit /Subtype /Form on appearance streams; Do needs it. Set only when missing:
  // an unchanged stream then stays out of an incremental update.
  setChanged(stream.dict, 'Type', N('XObject'));
  setChanged(stream.dict, 'Subtype', N('Form'));
  const ref = ap.ref ?? fc.ctx.register(stream);
  const name = writer.addResource(page, 'XObject', ref);
  writer.append(page, `q ${turn}${cm} cm /${name} Do Q`);
}

/**
 * Our own appearance content with its font names ("/F0 12 Tf") replaced by the page's. The same matches
 * as /\/(F\d+)(?= [-\d.]+ Tf)/g, found with indexOf: a regular expression with a replacer function was
 * ~4 % of flattening a 600-field form.
 */
export function withPageFonts(content: string, names: ReadonlyMap<string, string>): string {
  let out = '';
  let from = 0;
  for (let at = content.indexOf('/F'); at !== -1; at = content.indexOf('/F', at + 1)) {
    let end = at + 2;
    while (isDigit(content.charCodeAt(end))) end++;
    if (end === at + 2 || content.charCodeAt(end) !== 0x20) continue;
    let size = end + 1;
    while (isDigit(content.charCodeAt(size)) || content[size] === '-' || content[size] === '.') size++;
    if (size === end + 1 || !content.startsWith(' Tf', size)) continue;
    const name = names.get(content.slice(at + 1, end));
    if (!name) continue;
    out += `${content.slice(from, at + 1)}${name}`;
    from = end;
  }
  return from === 0 ? content : out + content.slice(from);
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * A value drawn by this render, written into the page itself: what Do would do with its Form
 * XObject (place it with cm and its /Matrix, clip to its /BBox), without an object per widget.
 * Its fonts become page resources once per page.
 */
function drawInline(
  fc: FillContext,
  writer: PageWriter,
  page: PDFDict,
  widget: PDFDict,
  drawn: DrawnAppearance,
  cache: PlacementCache,
  turn: string,
): void {
  const { box } = drawn;
  const arrays = arraysFor(fc.ctx, box);
  const cm = placementOf(
    widget,
    arrays,
    () => ({ bbox: [0, 0, box.width, box.height], matrix: matrixFor(box) }),
    cache,
  );
  if (!cm) return;
  const names = new Map<string, string>();
  for (const [font, local] of drawn.fonts.entries()) names.set(local, writer.fontResource(page, font.ref));
  // the entry placementOf just checked or made: the same box, so the same clip
  const entry = cache.get(widget)!;
  entry.clip ??= `${matrixFor(box).map(num).join(' ')} cm 0 0 ${num(box.width)} ${num(box.height)} re W n`;
  writer.append(page, `q ${turn}${cm} cm ${entry.clip}\n${withPageFonts(drawn.content, names)}\nQ`);
}

/**
 * The cm (with a trailing space) that keeps a NoRotate widget upright on a page turned `rotation`
 * degrees clockwise: a counter-clockwise turn of as much in page space about the upper-left corner of
 * its /Rect (PDF 32000-1, 12.5.3), as poppler and MuPDF draw it. Empty for any other widget.
 */
function uprightTurn(widget: PDFDict, rotation: number): string {
  if (rotation === 0 || !isNoRotate(widget)) return '';
  const rect = getNumbers(widget, 'Rect');
  if (rect?.length !== 4) return '';
  const [px, py] = [Math.min(rect[0], rect[2]), Math.max(rect[1], rect[3])];
  const [c, s] = [[1, 0, -1, 0][rotation / 90], [0, 1, 0, -1][rotation / 90]];
  return `${[c, s, -s, c, px - c * px + s * py, py - s * px - c * py].map(num).join(' ')} cm `;
}

function drawWidget(
  fc: FillContext,
  writer: PageWriter,
  page: PDFDict,
  widget: PDFDict,
  cache: PlacementCache,
  rotation: number,
): void {
  if (!isPrinted(widget)) return;
  const turn = uprightTurn(widget, rotation);
  const drawn = fc.drawn?.get(widget);
  if (drawn) drawInline(fc, writer, page, widget, drawn, cache, turn);
  else drawStream(fc, writer, page, widget, cache, turn);
}

export function flatten(
  fc: FillContext,
  pages: PageNode[],
  writer: PageWriter,
  catalog: PDFDict,
  cache: PlacementCache = new WeakMap(),
): void {
  for (const { dict: page } of pages) {
    const annots = page.lookup(N('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    const kept: (PDFRef | PDFDict)[] = [];
    const rotation = pageRotation(page);
    for (let i = 0; i < annots.size(); i++) {
      const raw = annots.get(i);
      const annot = annots.lookup(i);
      if (!(annot instanceof PDFDict)) continue;
      const subtype = annot.lookup(N('Subtype'));
      const isWidget =
        subtype instanceof PDFName ? subtype === N('Widget') : annot.has(N('FT')) || annot.has(N('Parent'));
      if (isWidget) drawWidget(fc, writer, page, annot, cache, rotation);
      else if (raw instanceof PDFRef || raw instanceof PDFDict) kept.push(raw);
    }
    if (kept.length) page.set(N('Annots'), fc.ctx.obj(kept));
    else page.delete(N('Annots'));
  }
  catalog.delete(N('AcroForm'));
  catalog.delete(N('NeedsRendering'));
}
