// Pure coordinate maths of the box editor: PDF user space (points, origin at the bottom left of the
// MediaBox, y up) <-> the page as shown (CSS pixels, origin at the top left of the visible box, y down),
// through the page's visible box (CropBox clipped to MediaBox) and its /Rotate. Same transform as
// pdf.js's PageViewport, so boxes land exactly where pdf.js draws the page; no DOM here.

/** [x1, y1, x2, y2] in PDF points. */
export type Rect = [number, number, number, number];

/** A page as pdf.js describes it: `page.view` (or `viewport.viewBox`) and `page.rotate`. */
export interface PageFrame {
  view: readonly number[];
  rotate: number;
}

/** A box on the shown page, in CSS pixels from its top left corner. */
export interface ScreenBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The affine transform [a, b, c, d, e, f] from user space to the shown page at `scale` px per point. */
export function pageTransform(frame: PageFrame, scale: number): number[] {
  const [x1, y1, x2, y2] = frame.view;
  const cx = (x1 + x2) / 2;
  const cy = (y1 + y2) / 2;
  const r = (((Math.round(frame.rotate / 90) * 90) % 360) + 360) % 360;
  // the unit vectors of the rotation, y flipped (screen y grows downwards)
  const [a, b, c, d] = r === 90 ? [0, 1, 1, 0] : r === 180 ? [-1, 0, 0, 1] : r === 270 ? [0, -1, -1, 0] : [1, 0, 0, -1];
  const { width, height } = shownSize(frame, scale);
  // the centre of the visible box goes to the centre of the shown page
  return [
    a * scale,
    b * scale,
    c * scale,
    d * scale,
    width / 2 - (a * cx + c * cy) * scale,
    height / 2 - (b * cx + d * cy) * scale,
  ];
}

/** Width and height of the page as shown (rotated by 90 or 270: sides swapped), in px at `scale`. */
export function shownSize(frame: PageFrame, scale = 1): { width: number; height: number } {
  const [x1, y1, x2, y2] = frame.view;
  const w = Math.abs(x2 - x1) * scale;
  const h = Math.abs(y2 - y1) * scale;
  const quarter = Math.abs(Math.round(frame.rotate / 90)) % 2 === 1;
  return quarter ? { width: h, height: w } : { width: w, height: h };
}

/** CSS pixels per point when the shown page is `shownWidthPx` wide. */
export function scaleFor(frame: PageFrame, shownWidthPx: number): number {
  return shownWidthPx / shownSize(frame).width;
}

export function toScreen(frame: PageFrame, scale: number, x: number, y: number): [number, number] {
  const [a, b, c, d, e, f] = pageTransform(frame, scale);
  return [a * x + c * y + e, b * x + d * y + f];
}

export function toPdf(frame: PageFrame, scale: number, px: number, py: number): [number, number] {
  const [a, b, c, d, e, f] = pageTransform(frame, scale);
  const det = a * d - b * c;
  const u = px - e;
  const v = py - f;
  return [(d * u - c * v) / det, (a * v - b * u) / det];
}

/** A user-space rect as a box on the shown page. */
export function rectToScreen(frame: PageFrame, scale: number, rect: readonly number[]): ScreenBox {
  const [ax, ay] = toScreen(frame, scale, rect[0], rect[1]);
  const [bx, by] = toScreen(frame, scale, rect[2], rect[3]);
  return { left: Math.min(ax, bx), top: Math.min(ay, by), width: Math.abs(bx - ax), height: Math.abs(by - ay) };
}

/** Points kept in a rect: hundredths, what a drag on a screen can mean. */
// (+ 0 turns -0 into 0)
const round = (n: number) => Math.round(n * 100) / 100 + 0;

/** A box on the shown page as a normalised user-space rect (x1 < x2, y1 < y2), rounded to 0.01 pt. */
export function screenToRect(frame: PageFrame, scale: number, box: ScreenBox): Rect {
  const [ax, ay] = toPdf(frame, scale, box.left, box.top);
  const [bx, by] = toPdf(frame, scale, box.left + box.width, box.top + box.height);
  return [round(Math.min(ax, bx)), round(Math.min(ay, by)), round(Math.max(ax, bx)), round(Math.max(ay, by))];
}

/** The box spanned by two pointer positions (a drag in any direction). */
export function spanBox(x1: number, y1: number, x2: number, y2: number): ScreenBox {
  return { left: Math.min(x1, x2), top: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

/** A rect moved by (dx, dy) as the page is shown (dx right, dy down), in points: arrows, drags. */
export function moveRect(frame: PageFrame, rect: readonly number[], dx: number, dy: number): Rect {
  const b = rectToScreen(frame, 1, rect);
  return screenToRect(frame, 1, { ...b, left: b.left + dx, top: b.top + dy });
}

/** Corner handles of a selected box, named by the side of the shown page they are on. */
export type Handle = 'nw' | 'ne' | 'sw' | 'se';

/**
 * A box whose `handle` corner was dragged by (dx, dy): the opposite corner stays put, and the box never
 * gets smaller than `min` on a side (it does not flip when dragged past the other corner).
 */
export function resizeBox(box: ScreenBox, handle: Handle, dx: number, dy: number, min: number): ScreenBox {
  let { left, top } = box;
  let right = box.left + box.width;
  let bottom = box.top + box.height;
  if (handle === 'nw' || handle === 'sw') left = Math.min(left + dx, right - min);
  else right = Math.max(right + dx, left + min);
  if (handle === 'nw' || handle === 'ne') top = Math.min(top + dy, bottom - min);
  else bottom = Math.max(bottom + dy, top + min);
  return { left, top, width: right - left, height: bottom - top };
}

/** A rect grown (or shrunk) by (dw, dh) points as shown, its top left corner kept: keyboard resizing. */
export function growRect(frame: PageFrame, rect: readonly number[], dw: number, dh: number, min = 2): Rect {
  return screenToRect(frame, 1, resizeBox(rectToScreen(frame, 1, rect), 'se', dw, dh, min));
}

/** The smallest rect holding every rect given. */
export function boundsOf(rects: readonly (readonly number[])[]): Rect {
  return [
    Math.min(...rects.map((r) => r[0])),
    Math.min(...rects.map((r) => r[1])),
    Math.max(...rects.map((r) => r[2])),
    Math.max(...rects.map((r) => r[3])),
  ];
}

/**
 * `n` radio buttons laid out in a row inside `rect` (user space): squares as tall as the rect allows,
 * one per equal cell, so a group drawn as one box becomes buttons that do not overlap.
 */
export function radioRow(rect: readonly number[], n: number): Rect[] {
  const [x1, y1, x2, y2] = rect;
  const cell = (x2 - x1) / n;
  // four fifths of a cell: buttons with a gap between them, never touching
  const side = Math.min(cell * 0.8, y2 - y1);
  return Array.from({ length: n }, (_, i) => [
    round(x1 + i * cell),
    round(y2 - side),
    round(x1 + i * cell + side),
    round(y2),
  ]);
}

/** A rect shifted by (dx, dy) points in user space: every widget of a group moves by the same amount. */
export function shiftRect(rect: readonly number[], dx: number, dy: number): Rect {
  return [round(rect[0] + dx), round(rect[1] + dy), round(rect[2] + dx), round(rect[3] + dy)];
}
