// Widget geometry and the Form XObjects we write as appearance streams. Content is built as ASCII
// operator text; user text only ever enters it as hex strings (PDFFont.encodeText, or glyph ids).
import {
  PDFArray,
  PDFDict,
  type PDFName,
  PDFNumber,
  PDFRawStream,
  type PDFContext,
  type PDFFont,
  type PDFObject,
  type PDFRef,
} from '@cantoo/pdf-lib';
import { num } from '../content-ops.js';
import { N, getArray, getDict, getNumber, getNumbers, getName } from '../pdf-objects.js';

export interface WidgetBox {
  /** Size in the appearance's own (unrotated text) space. */
  width: number;
  height: number;
  /** /MK /R: the appearance is drawn rotated counter-clockwise by this angle */
  rotation: 0 | 90 | 180 | 270;
  /** border width actually drawn (0 when there is no border colour) */
  border: number;
  background?: string;
  borderColor?: string;
  borderStyle: string;
}

function colorOps(arr: PDFArray | undefined, stroke: boolean): string | undefined {
  if (!arr) return undefined;
  const c: number[] = [];
  for (let i = 0; i < arr.size(); i++) {
    const v = arr.lookup(i);
    if (v instanceof PDFNumber) c.push(v.asNumber());
  }
  const op = c.length === 1 ? 'g' : c.length === 3 ? 'rg' : c.length === 4 ? 'k' : undefined;
  if (!op) return undefined; // [] means transparent
  return `${c.map(num).join(' ')} ${stroke ? op.toUpperCase() : op}`;
}

/**
 * Computed per widget once (read-only results): the engine never writes /Rect, /MK or /BS, so a
 * widget of a prepared (cached) template keeps its box from render to render.
 */
const boxes = new WeakMap<PDFDict, Readonly<WidgetBox> | null>();

export function widgetBox(widget: PDFDict): Readonly<WidgetBox> | undefined {
  let box = boxes.get(widget);
  if (box === undefined) boxes.set(widget, (box = computeBox(widget) ?? null));
  return box ?? undefined;
}

/**
 * /BBox and /Matrix of the box's appearances, built once per box: every render's new appearance
 * for the widget shares them (nothing writes into them; they are never base objects).
 */
const boxArrays = new WeakMap<WidgetBox, { bbox: PDFArray; matrix: PDFArray }>();

export function arraysFor(ctx: PDFContext, box: WidgetBox): { bbox: PDFArray; matrix: PDFArray } {
  let arrays = boxArrays.get(box);
  if (!arrays) {
    arrays = { bbox: numbers(ctx, [0, 0, box.width, box.height]), matrix: numbers(ctx, matrixFor(box)) };
    boxArrays.set(box, arrays);
  }
  return arrays;
}

function computeBox(widget: PDFDict): WidgetBox | undefined {
  const r = getNumbers(widget, 'Rect');
  if (r?.length !== 4) return undefined;
  const w = Math.abs(r[2] - r[0]);
  const h = Math.abs(r[3] - r[1]);
  if (!(w > 0 && h > 0)) return undefined;
  const mk = getDict(widget, 'MK');
  const rot = (((Math.round((mk ? (getNumber(mk, 'R') ?? 0) : 0) / 90) * 90) % 360) + 360) % 360;
  const bs = getDict(widget, 'BS');
  const borderColor = colorOps(mk ? getArray(mk, 'BC') : undefined, true);
  const bw = bs ? (getNumber(bs, 'W') ?? 1) : 1;
  const swap = rot === 90 || rot === 270;
  return {
    width: swap ? h : w,
    height: swap ? w : h,
    rotation: rot as WidgetBox['rotation'],
    border: borderColor ? Math.max(0, Math.min(bw, Math.min(w, h) / 4)) : 0,
    background: colorOps(mk ? getArray(mk, 'BG') : undefined, false),
    borderColor,
    borderStyle: (bs && getName(bs, 'S')?.decodeText()) || 'S',
  };
}

/** Background and border, drawn under the value as Acrobat does. */
export function frameOps(box: WidgetBox): string {
  const ops: string[] = [];
  const { width: w, height: h, border: b } = box;
  if (box.background) ops.push(`${box.background} 0 0 ${num(w)} ${num(h)} re f`);
  if (box.borderColor && b > 0) {
    if (box.borderStyle === 'U')
      ops.push(`${box.borderColor} ${num(b)} w 0 ${num(b / 2)} m ${num(w)} ${num(b / 2)} l S`);
    else ops.push(`${box.borderColor} ${num(b)} w ${num(b / 2)} ${num(b / 2)} ${num(w - b)} ${num(h - b)} re S`);
  }
  return ops.join('\n');
}

export function matrixFor(box: WidgetBox): number[] {
  const { width: w, height: h } = box;
  switch (box.rotation) {
    case 90:
      return [0, 1, -1, 0, h, 0];
    case 180:
      return [-1, 0, 0, -1, w, h];
    case 270:
      return [0, -1, 1, 0, 0, w];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

/** Collects the fonts a content stream uses and names them /F0, /F1, ... in its resources. */
export class FontNames {
  private readonly map = new Map<{ readonly ref: PDFRef }, string>();
  name(font: PDFFont | { readonly ref: PDFRef }): string {
    let n = this.map.get(font);
    if (!n) this.map.set(font, (n = `F${this.map.size}`));
    return n;
  }
  /** Each font used, with its name in this content. */
  entries(): IterableIterator<[{ readonly ref: PDFRef }, string]> {
    return this.map.entries();
  }
  resources(widget: PDFDict): PDFDict {
    const font = new Map<PDFName, PDFObject>();
    for (const [f, n] of this.map) font.set(N(n), f.ref);
    return dictOf(widget.context, [['Font', PDFDict.fromMapWithContext(font, widget.context)]]);
  }
}

/**
 * A dictionary from interned key names. Appearances are built hundreds of times per render;
 * context.obj() would re-parse every key and name string through PDFName.of each time.
 */
function dictOf(ctx: PDFContext, entries: [string, PDFObject][]): PDFDict {
  return PDFDict.fromMapWithContext(new Map(entries.map(([k, v]) => [N(k), v])), ctx);
}

function numbers(ctx: PDFContext, values: number[]): PDFArray {
  const arr = PDFArray.withContext(ctx);
  for (const v of values) arr.push(PDFNumber.of(v));
  return arr;
}

/** Registers a Form XObject for the widget's box. `content` is ASCII (user text only as hex strings). */
export function formXObject(widget: PDFDict, box: WidgetBox, content: string, resources?: PDFDict): PDFRef {
  const ctx = widget.context;
  const { bbox, matrix } = arraysFor(ctx, box);
  const entries: [string, PDFObject][] = [
    ['Type', N('XObject')],
    ['Subtype', N('Form')],
    ['BBox', bbox],
    ['Matrix', matrix],
  ];
  if (resources) entries.push(['Resources', resources]);
  return ctx.register(PDFRawStream.of(dictOf(ctx, entries), Buffer.from(content, 'latin1')));
}

/** Replaces the widget's appearance with a single normal appearance. */
export function setNormalAppearance(widget: PDFDict, ref: PDFRef): void {
  widget.set(N('AP'), dictOf(widget.context, [['N', ref]]));
}
