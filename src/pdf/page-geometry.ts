// A page's geometry as viewers show it: the visible box and the clockwise turn of /Rotate.
import { PDFArray, PDFNumber, type PDFDict } from '@cantoo/pdf-lib';
import { getNumbers, inherited } from './pdf-objects.js';

/** The inheritable box `key` as [x0 y0 x1 y1], normalised, when it is four numbers. */
function box(page: PDFDict, key: string): number[] | undefined {
  const v = inherited(page, key);
  if (!(v instanceof PDFArray) || v.size() !== 4) return undefined;
  const n = [0, 1, 2, 3].map((i) => v.lookup(i));
  if (!n.every((x) => x instanceof PDFNumber)) return undefined;
  const [a, b, c, d] = n.map((x) => (x as PDFNumber).asNumber());
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

/** The visible box: /CropBox else /MediaBox (both inheritable), as [x0 y0 x1 y1]. */
export function visibleBox(page: PDFDict): number[] {
  return box(page, 'CropBox') ?? box(page, 'MediaBox') ?? getNumbers(page, 'MediaBox') ?? [0, 0, 612, 792];
}

/** The area a viewer can ever show: the crop box clipped to the media box (PDF 32000-1, 14.11.2). */
export function shownArea(page: PDFDict): number[] {
  const crop = visibleBox(page);
  const media = box(page, 'MediaBox') ?? crop;
  return [
    Math.max(crop[0], media[0]),
    Math.max(crop[1], media[1]),
    Math.min(crop[2], media[2]),
    Math.min(crop[3], media[3]),
  ];
}

/** /Rotate (inheritable) as 0, 90, 180 or 270: how far viewers turn the page clockwise. */
export function pageRotation(page: PDFDict): number {
  const r = inherited(page, 'Rotate');
  return (((r instanceof PDFNumber ? Math.round(r.asNumber() / 90) * 90 : 0) % 360) + 360) % 360;
}
