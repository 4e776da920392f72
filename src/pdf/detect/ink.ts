// The vector drawing of one page as straight lines, read from pdf.js's operator list (pdf.js parses
// the content streams and form XObjects; the geometry is ours). Only what a person sees as ink is
// kept: stroked and filled paths in a colour other than white, their straight, axis-parallel edges,
// and small closed curves (the rings of radio buttons). Everything is in PDF user space.
import type { Rect } from '../types.js';

/** An axis-parallel line: horizontal when y0 === y1 (x0 < x1), vertical when x0 === x1 (y0 < y1). */
export interface Segment {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageInk {
  horizontal: Segment[];
  vertical: Segment[];
  /** closed curves about the size of a radio button's ring */
  rings: Rect[];
  /** filled rectangles, in drawing order, with their lightness (0 black, 1 white) */
  fills: { rect: Rect; light: number }[];
  /** area of the page covered by images (a scan shows as one image over the whole page) */
  imageArea: number;
  /** the segment cap was reached: the rest of the page's drawing was not read */
  capped: boolean;
}

/** The operator numbers we read (pdf.js's OPS table, passed in so this file stays free of pdf.js). */
export type OpCodes = Record<
  | 'save'
  | 'setDash'
  | 'restore'
  | 'transform'
  | 'constructPath'
  | 'moveTo'
  | 'lineTo'
  | 'curveTo'
  | 'curveTo2'
  | 'curveTo3'
  | 'closePath'
  | 'rectangle'
  | 'stroke'
  | 'closeStroke'
  | 'fill'
  | 'eoFill'
  | 'fillStroke'
  | 'eoFillStroke'
  | 'closeFillStroke'
  | 'closeEOFillStroke'
  | 'endPath'
  | 'setFillRGBColor'
  | 'setStrokeRGBColor'
  | 'paintFormXObjectBegin'
  | 'paintFormXObjectEnd'
  | 'paintImageXObject'
  | 'paintInlineImageXObject'
  | 'paintImageMaskXObject'
  | 'paintImageXObjectRepeat',
  number
>;

export interface OperatorList {
  fnArray: ArrayLike<number>;
  argsArray: ArrayLike<unknown>;
}

type Matrix = [number, number, number, number, number, number];

interface GraphicsState {
  ctm: Matrix;
  fillWhite: boolean;
  strokeWhite: boolean;
  /** lightness of the fill colour, 0-1 */
  fillLight: number;
  /** strokes are dotted (a dash pattern of dots far apart): leaders, not lines to write on */
  dotted: boolean;
}

/** A dash pattern of short dots with wide gaps ("[1 11] 0 d"): a row of leader dots. */
function isDotted(args: unknown[] | null): boolean {
  const pattern = Array.isArray(args?.[0]) ? (args[0] as number[]) : [];
  if (pattern.length === 0) return false;
  const on = pattern.filter((_, i) => i % 2 === 0);
  const off = pattern.length > 1 ? pattern.filter((_, i) => i % 2 === 1) : on;
  return Math.max(...on) <= 1.5 && Math.min(...off) >= 4 * Math.max(...on, 0.5);
}

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

const apply = (m: Matrix, x: number, y: number): [number, number] => [
  m[0] * x + m[2] * y + m[4],
  m[1] * x + m[3] * y + m[5],
];

/** Paper colour: ink this light is a background or an eraser, not a line. */
const lightness = (args: unknown) => {
  const [r, g, b] = Array.from(args as ArrayLike<number>);
  return (r + g + b) / 765;
};

const isWhite = (args: unknown) => {
  const [r, g, b] = Array.from(args as ArrayLike<number>);
  return r >= 245 && g >= 245 && b >= 245;
};

/** Lines off axis by less than this (points over the line's length) still count as straight across. */
const AXIS_SLACK = 0.6;
/** A filled rectangle thinner than this is a rule (a line drawn as a thin box). */
const RULE_THICKNESS = 2.5;
/** Rings of radio buttons: a closed curve this wide (points). */
const RING_MIN = 6;
const RING_MAX = 24;

/** A path being built: its edges and curves, kept until a painting operator says whether it shows. */
interface PendingPath {
  lines: [number, number, number, number][];
  curved: { box: Rect; closed: boolean }[];
  /** the path's rectangles (re operators), which show as fills when filled */
  rects: Rect[];
}

/**
 * The page's lines from its operator list. At most `maxSegments` lines are kept; past them the page is
 * marked capped and the rest is not looked at (a page of 100,000 hatching strokes is not a form).
 */
export function readInk(list: OperatorList, ops: OpCodes, maxSegments: number): PageInk {
  const out: PageInk = { horizontal: [], vertical: [], rings: [], fills: [], imageArea: 0, capped: false };
  const stack: GraphicsState[] = [];
  let gs: GraphicsState = {
    ctm: [1, 0, 0, 1, 0, 0],
    fillWhite: false,
    strokeWhite: false,
    fillLight: 0,
    dotted: false,
  };
  let path: PendingPath = { lines: [], curved: [], rects: [] };
  let count = 0;

  const addLine = (x0: number, y0: number, x1: number, y1: number) => {
    if (Math.abs(y1 - y0) <= AXIS_SLACK && Math.abs(x1 - x0) >= 1) {
      const y = (y0 + y1) / 2;
      out.horizontal.push({ x0: Math.min(x0, x1), y0: y, x1: Math.max(x0, x1), y1: y });
      count++;
    } else if (Math.abs(x1 - x0) <= AXIS_SLACK && Math.abs(y1 - y0) >= 1) {
      const x = (x0 + x1) / 2;
      out.vertical.push({ x0: x, y0: Math.min(y0, y1), x1: x, y1: Math.max(y0, y1) });
      count++;
    }
  };

  const paint = (stroked: boolean, filled: boolean) => {
    const shows = (stroked && !gs.strokeWhite) || (filled && !gs.fillWhite);
    // a dotted stroke is a leader between a caption and its box; filled, the path is a shape as ever
    const lines = stroked && gs.dotted && !filled ? [] : path.lines;
    if (shows) {
      for (const [x0, y0, x1, y1] of lines) {
        // one path may hold the whole page's hatching: the cap holds inside it too
        if (count >= maxSegments) {
          out.capped = true;
          break;
        }
        addLine(x0, y0, x1, y1);
      }
      for (const c of path.curved) {
        const w = c.box[2] - c.box[0];
        const h = c.box[3] - c.box[1];
        if (c.closed && w >= RING_MIN && w <= RING_MAX && h >= RING_MIN && h <= RING_MAX && Math.abs(w - h) < 0.25 * w)
          out.rings.push(c.box);
      }
    }
    // white fills too: a white box drawn over a dark one is paper again
    if (filled) {
      // a box and a box inside it in one path are a frame: its middle, the hole, is not filled
      const within = (a: Rect, b: Rect) => a !== b && a[0] >= b[0] && a[1] >= b[1] && a[2] <= b[2] && a[3] <= b[3];
      const framed = (r: Rect) => path.rects.some((o) => within(o, r) || within(r, o));
      for (const rect of path.rects.length > 1 ? path.rects.filter((r) => !framed(r)) : path.rects) {
        if (count >= maxSegments) {
          out.capped = true;
          break;
        }
        out.fills.push({ rect, light: gs.fillLight });
        count++;
      }
    }
    path = { lines: [], curved: [], rects: [] };
  };

  const construct = (pathOps: ArrayLike<number>, coords: ArrayLike<number>) => {
    const m = gs.ctm;
    let cx = 0;
    let cy = 0;
    let sx = 0;
    let sy = 0;
    let curve: Rect | undefined;
    let j = 0;
    const grow = (x: number, y: number) => {
      if (!curve) return;
      curve[0] = Math.min(curve[0], x);
      curve[1] = Math.min(curve[1], y);
      curve[2] = Math.max(curve[2], x);
      curve[3] = Math.max(curve[3], y);
    };
    const endCurve = (closed: boolean) => {
      if (curve) path.curved.push({ box: curve, closed });
      curve = undefined;
    };
    // the corners of the subpath drawn with lines only (undefined once it has a curve): four corners
    // joined along the axes are a rectangle, filled like one drawn with "re"
    let corners: [number, number][] | undefined = [];
    const endCorners = (closed: boolean) => {
      const pts = corners ?? [];
      const last = pts[pts.length - 1];
      const shut = closed || (pts.length === 5 && last[0] === pts[0][0] && last[1] === pts[0][1]);
      if (shut && (pts.length === 4 || pts.length === 5)) {
        const four = pts.slice(0, 4).map(([x, y]) => apply(m, x, y));
        const axial = four.every(([x, y], k) => {
          const [nx, ny] = four[(k + 1) % 4];
          return Math.abs(nx - x) <= AXIS_SLACK || Math.abs(ny - y) <= AXIS_SLACK;
        });
        const xs = four.map((q) => q[0]);
        const ys = four.map((q) => q[1]);
        const r: Rect = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
        if (axial && r[2] - r[0] > RULE_THICKNESS && r[3] - r[1] > RULE_THICKNESS) path.rects.push(r);
      }
      corners = [];
    };
    for (let i = 0; i < pathOps.length; i++) {
      const op = pathOps[i];
      if (op === ops.rectangle) {
        endCurve(false);
        endCorners(false);
        const [x0, y0] = apply(m, coords[j], coords[j + 1]);
        const [x1, y1] = apply(m, coords[j] + coords[j + 2], coords[j + 1] + coords[j + 3]);
        j += 4;
        const [xa, xb] = [Math.min(x0, x1), Math.max(x0, x1)];
        const [ya, yb] = [Math.min(y0, y1), Math.max(y0, y1)];
        if (xb - xa > RULE_THICKNESS && yb - ya > RULE_THICKNESS) path.rects.push([xa, ya, xb, yb]);
        // a thin filled box is a rule: one line along its middle
        if (yb - ya <= RULE_THICKNESS && xb - xa > RULE_THICKNESS)
          path.lines.push([xa, (ya + yb) / 2, xb, (ya + yb) / 2]);
        else if (xb - xa <= RULE_THICKNESS && yb - ya > RULE_THICKNESS)
          path.lines.push([(xa + xb) / 2, ya, (xa + xb) / 2, yb]);
        else if (xb - xa > RULE_THICKNESS)
          path.lines.push([xa, ya, xb, ya], [xb, ya, xb, yb], [xa, yb, xb, yb], [xa, ya, xa, yb]);
        [cx, cy] = [coords[j - 4], coords[j - 3]];
        [sx, sy] = [cx, cy];
      } else if (op === ops.moveTo) {
        endCurve(false);
        endCorners(false);
        [cx, cy] = [coords[j], coords[j + 1]];
        [sx, sy] = [cx, cy];
        corners = [[cx, cy]];
        j += 2;
      } else if (op === ops.lineTo) {
        const [x, y] = [coords[j], coords[j + 1]];
        j += 2;
        corners?.push([x, y]);
        path.lines.push([...apply(m, cx, cy), ...apply(m, x, y)]);
        grow(...apply(m, x, y));
        [cx, cy] = [x, y];
      } else if (op === ops.curveTo || op === ops.curveTo2 || op === ops.curveTo3) {
        const n = op === ops.curveTo ? 6 : 4;
        if (!curve) {
          const [px, py] = apply(m, cx, cy);
          curve = [px, py, px, py];
        }
        for (let k = 0; k < n; k += 2) grow(...apply(m, coords[j + k], coords[j + k + 1]));
        corners = undefined;
        [cx, cy] = [coords[j + n - 2], coords[j + n - 1]];
        j += n;
      } else if (op === ops.closePath) {
        if (cx !== sx || cy !== sy) path.lines.push([...apply(m, cx, cy), ...apply(m, sx, sy)]);
        endCurve(true);
        endCorners(true);
        [cx, cy] = [sx, sy];
      }
    }
    endCurve(false);
    endCorners(false);
  };

  const { fnArray, argsArray } = list;
  for (let i = 0; i < fnArray.length; i++) {
    if (out.capped) break;
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    switch (fn) {
      case ops.save:
        stack.push(gs);
        gs = { ...gs };
        break;
      case ops.restore:
        gs = stack.pop() ?? gs;
        break;
      case ops.transform:
        gs.ctm = multiply(gs.ctm, args as unknown as Matrix);
        break;
      case ops.paintFormXObjectBegin:
        stack.push(gs);
        gs = { ...gs, ctm: Array.isArray(args?.[0]) ? multiply(gs.ctm, args[0] as Matrix) : gs.ctm };
        break;
      case ops.paintFormXObjectEnd:
        gs = stack.pop() ?? gs;
        break;
      case ops.setFillRGBColor:
        gs.fillWhite = isWhite(args);
        gs.fillLight = lightness(args);
        break;
      case ops.setStrokeRGBColor:
        gs.strokeWhite = isWhite(args);
        break;
      case ops.setDash:
        gs.dotted = isDotted(args);
        break;
      case ops.constructPath:
        if (args) construct(args[0] as ArrayLike<number>, args[1] as ArrayLike<number>);
        break;
      case ops.stroke:
      case ops.closeStroke:
        paint(true, false);
        break;
      case ops.fill:
      case ops.eoFill:
        paint(false, true);
        break;
      case ops.fillStroke:
      case ops.eoFillStroke:
      case ops.closeFillStroke:
      case ops.closeEOFillStroke:
        paint(true, true);
        break;
      case ops.endPath:
        paint(false, false);
        break;
      case ops.paintImageXObject:
      case ops.paintInlineImageXObject:
      case ops.paintImageMaskXObject:
      case ops.paintImageXObjectRepeat: {
        // an image fills the unit square of its CTM
        const m = gs.ctm;
        out.imageArea += Math.abs(m[0] * m[3] - m[1] * m[2]);
        break;
      }
    }
  }
  return out;
}
