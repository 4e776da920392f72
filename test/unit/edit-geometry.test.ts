import { PDFDocument, degrees } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import {
  boundsOf,
  growRect,
  moveRect,
  radioRow,
  rectToScreen,
  resizeBox,
  scaleFor,
  screenToRect,
  shiftRect,
  shownSize,
  toPdf,
  toScreen,
  type PageFrame,
} from '../../web/src/pages/template/edit-geometry.js';
import { openWithPdfjs } from '../helpers/pdfjs.js';

// The box editor's coordinate maths, checked against pdf.js's own PageViewport (what draws the page
// image in the dashboard) on pages with every /Rotate and an offset CropBox, and by hand.

const ROTATIONS = [0, 90, 180, 270];

/** One page per rotation: a 400 x 600 MediaBox whose CropBox starts at (30, 50). */
async function framedPages() {
  const pdf = await PDFDocument.create();
  for (const r of ROTATIONS) {
    const page = pdf.addPage([400, 600]);
    page.setCropBox(30, 50, 300, 500);
    page.setRotation(degrees(r));
  }
  return openWithPdfjs(await pdf.save());
}

describe('edit-geometry: user space <-> the shown page', () => {
  it('places points exactly where pdf.js does, for every rotation, with a CropBox off the origin', async () => {
    const doc = await framedPages();
    for (let n = 1; n <= ROTATIONS.length; n++) {
      const page = await doc.getPage(n);
      const frame: PageFrame = { view: page.view, rotate: page.rotate };
      expect(frame.rotate).toBe(ROTATIONS[n - 1]);
      for (const scale of [1, 0.73, 2.5]) {
        const vp = page.getViewport({ scale });
        expect(shownSize(frame, scale).width).toBeCloseTo(vp.width, 6);
        expect(shownSize(frame, scale).height).toBeCloseTo(vp.height, 6);
        for (const [x, y] of [
          [30, 50],
          [300, 500],
          [123.4, 321.9],
          [0, 0],
        ]) {
          const [px, py] = vp.convertToViewportPoint(x, y);
          const mine = toScreen(frame, scale, x, y);
          expect(mine[0], `rotate ${frame.rotate} x`).toBeCloseTo(px, 6);
          expect(mine[1], `rotate ${frame.rotate} y`).toBeCloseTo(py, 6);
          // and back: the inverse of pdf.js's own inverse
          const [ux, uy] = vp.convertToPdfPoint(px, py);
          const back = toPdf(frame, scale, px, py);
          expect(back[0]).toBeCloseTo(ux, 6);
          expect(back[1]).toBeCloseTo(uy, 6);
        }
        const rect = [60, 100, 180, 130];
        const [a, b, c, d] = vp.convertToViewportRectangle(rect);
        const box = rectToScreen(frame, scale, rect);
        expect(box.left).toBeCloseTo(Math.min(a, c), 6);
        expect(box.top).toBeCloseTo(Math.min(b, d), 6);
        expect(box.width).toBeCloseTo(Math.abs(c - a), 6);
        expect(box.height).toBeCloseTo(Math.abs(d - b), 6);
        expect(screenToRect(frame, scale, box)).toEqual(rect);
      }
    }
    await doc.destroy();
  });

  it('turns a drag on an unrotated letter page into points, the bottom left corner first', () => {
    const frame = { view: [0, 0, 612, 792], rotate: 0 };
    const scale = scaleFor(frame, 918); // 1.5 px per point
    expect(scale).toBe(1.5);
    // 150 x 30 px from (90, 150) px: 100 x 20 pt, its top 100 pt below the top of the page
    expect(screenToRect(frame, scale, { left: 90, top: 150, width: 150, height: 30 })).toEqual([60, 672, 160, 692]);
  });

  it('moves and grows a rect in the directions the page is shown, whatever its rotation', () => {
    const upright = { view: [0, 0, 612, 792], rotate: 0 };
    expect(moveRect(upright, [10, 10, 20, 20], 1, 0)).toEqual([11, 10, 21, 20]);
    expect(moveRect(upright, [10, 10, 20, 20], 0, 10)).toEqual([10, 0, 20, 10]); // down the screen: y falls
    const quarter = { view: [0, 0, 612, 792], rotate: 90 };
    // turned a quarter clockwise: right on the screen is up the page's y axis, down is along x
    expect(moveRect(quarter, [10, 10, 20, 20], 1, 0)).toEqual([10, 11, 20, 21]);
    expect(moveRect(quarter, [10, 10, 20, 20], 0, 10)).toEqual([20, 10, 30, 20]);
    // growing keeps the top left corner as shown
    expect(growRect(upright, [10, 10, 20, 20], 5, 5)).toEqual([10, 5, 25, 20]);
    expect(growRect(upright, [10, 10, 20, 20], -50, 0)).toEqual([10, 10, 12, 20]); // never below 2 pt
  });

  it('resizes by a corner handle without flipping past the opposite corner', () => {
    const box = { left: 10, top: 10, width: 100, height: 20 };
    expect(resizeBox(box, 'se', 10, 5, 4)).toEqual({ left: 10, top: 10, width: 110, height: 25 });
    expect(resizeBox(box, 'nw', 10, 5, 4)).toEqual({ left: 20, top: 15, width: 90, height: 15 });
    expect(resizeBox(box, 'ne', -500, -5, 4)).toEqual({ left: 10, top: 5, width: 4, height: 25 });
    expect(resizeBox(box, 'sw', 0, -500, 4)).toEqual({ left: 10, top: 10, width: 100, height: 4 });
  });

  it('lays radio buttons in a row without overlap, and shifts a group as one', () => {
    const row = radioRow([0, 0, 90, 20], 3);
    expect(row).toHaveLength(3);
    for (let i = 1; i < row.length; i++) expect(row[i][0]).toBeGreaterThan(row[i - 1][2]);
    for (const r of row) expect(r[3] - r[1]).toBeCloseTo(r[2] - r[0], 6); // squares
    expect(shiftRect([10, 10, 20, 20], -2.5, 3)).toEqual([7.5, 13, 17.5, 23]);
    expect(boundsOf(row)).toEqual([0, 0, 80, 20]); // squares of the full height, a third of the width apart
  });
});
