// Check box and radio button appearances. A button shows the appearance named by each widget's
// /AS; this module finds a widget's on-state in its /AP /N and draws ZapfDingbats marks: the on
// appearance of a bare widget, and marks over on-appearances that show nothing. Which state a value
// picks, and writing /V and /AS, is the filler's (fill/field-button.ts).
import {
  PDFArray,
  type PDFContext,
  type PDFDict,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFStream,
  StandardFonts,
} from '@cantoo/pdf-lib';
import { brokenOnAppearance } from './appearance-check.js';
import { formXObject, frameOps, widgetBox, type WidgetBox } from './appearance-stream.js';
import { num } from '../content-ops.js';
import type { FontSet } from '../fonts/fonts.js';
import { N, getDict, nameFromText, textOf } from '../pdf-objects.js';

export const OFF = PDFName.of('Off');

/**
 * `name.decodeText() === 'Off'` without decoding: a name with no # escape decodes to its own characters
 * (pdf-lib's decodeText builds a byte array per call; every checkbox of every render asked it).
 */
function isOff(name: PDFName): boolean {
  const encoded = name.asString();
  return encoded === '/Off' || (encoded.includes('#') && name.decodeText() === 'Off');
}

/** A widget's on-state: a non-Off key of /AP /N that is really a stream (fw9 has a bogus /N font). */
export function onState(widget: PDFDict): PDFName | undefined {
  const ap = getDict(widget, 'AP');
  const n = ap && getDict(ap, 'N');
  if (!n) return undefined;
  const down = getDict(ap, 'D');
  const keys = n.keys();
  const candidates = keys.filter((k) => !isOff(k) && n.lookup(k) instanceof PDFStream);
  return candidates.find((k) => down?.has(k)) ?? candidates[0] ?? keys.find((k) => !isOff(k));
}

/** The ZapfDingbats character the widget asks for (/MK /CA), else a check or, for radios, a dot. */
function markOf(widget: PDFDict, radio: boolean): string {
  const mk = getDict(widget, 'MK');
  return (mk && textOf(mk.lookup(N('CA'))))?.slice(0, 1) || (radio ? 'l' : '4');
}

/**
 * A ZapfDingbats mark (/MK /CA, default check or dot) over `under` (the widget's own Off
 * appearance, drawn as an XObject) or, without it, the background and border of /MK.
 */
function markStream(
  ctx: PDFContext,
  fonts: FontSet,
  widget: PDFDict,
  box: WidgetBox,
  radio: boolean,
  under?: PDFRef,
): PDFRef {
  const font = fonts.standardFont(StandardFonts.ZapfDingbats);
  // /MK /CA is a character code of ZapfDingbats' own encoding ('4' is the check, 'l' the dot);
  // pdf-lib measures and encodes Unicode (U+2714, U+25CF), so the code is mapped back first.
  let text = fonts.standardCharOf(font, markOf(widget, radio).charCodeAt(0)) ?? (radio ? '\u25cf' : '\u2714');
  let w = 0;
  let hex: string;
  try {
    w = font.widthOfTextAtSize(text, 1);
    hex = font.encodeText(text).toString();
  } catch {
    text = radio ? '\u25cf' : '\u2714';
    w = font.widthOfTextAtSize(text, 1);
    hex = font.encodeText(text).toString();
  }
  const size = Math.min(box.width, box.height) * 0.8;
  const x = (box.width - w * size) / 2;
  const y = (box.height - size * 0.7) / 2;
  const base = under ? 'q /Off Do Q' : frameOps(box);
  const on = `${base}\nq BT 0 g /ZaDb ${num(size)} Tf ${num(x)} ${num(y)} Td ${hex} Tj ET Q`;
  const res = ctx.obj(under ? { Font: { ZaDb: font.ref }, XObject: { Off: under } } : { Font: { ZaDb: font.ref } });
  return formXObject(widget, box, on, res);
}

/**
 * The widget's on-state name: its own, else (a bare widget) `stateName`, drawn as a ZapfDingbats
 * mark (/MK /CA, default check or dot) with a plain Off appearance. Undefined without a box.
 */
export function ensureOnAppearance(
  ctx: PDFContext,
  fonts: FontSet,
  widget: PDFDict,
  stateName: string,
  radio: boolean,
): PDFName | undefined {
  const existing = onState(widget);
  if (existing) return existing;
  const box = widgetBox(widget);
  if (!box) return undefined;
  const name = nameFromText(stateName);
  const normal = ctx.obj({});
  normal.set(name, markStream(ctx, fonts, widget, box, radio));
  normal.set(OFF, formXObject(widget, box, frameOps(box)));
  widget.set(N('AP'), ctx.obj({ N: normal }));
  return name;
}

/** The Off appearance as a Form XObject our mark can draw over unchanged (same box, no transform). */
function reusableOff(normal: PDFDict, box: WidgetBox): PDFRef | undefined {
  const ref = normal.get(OFF);
  const off = normal.lookup(OFF);
  if (!(ref instanceof PDFRef) || !(off instanceof PDFStream) || box.rotation !== 0) return undefined;
  const bbox = off.dict.lookup(N('BBox'));
  const matrix = off.dict.lookup(N('Matrix'));
  const nums = (a: unknown) =>
    a instanceof PDFArray ? a.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN)) : undefined;
  const b = nums(bbox);
  const m = nums(matrix);
  const near = (p: number, q: number) => Math.abs(p - q) < 0.5;
  if (b?.length !== 4 || !near(b[0], 0) || !near(b[1], 0) || !near(b[2], box.width) || !near(b[3], box.height))
    return undefined;
  if (m && !(m.length === 6 && [1, 0, 0, 1, 0, 0].every((v, i) => near(m[i], v)))) return undefined;
  return ref;
}

/**
 * Replaces on-appearances that show no proper mark (no /BBox, empty, a font missing from their
 * resources, a check character in a non-Dingbats font, identical to Off) with a ZapfDingbats mark
 * drawn over the widget's own Off appearance. The state names stay as they are (values map to them). Returns
 * how many widgets were repaired. Data-independent: a prepared template runs it once.
 */
export function repairButtonAppearances(
  ctx: PDFContext,
  fonts: FontSet,
  widgets: readonly PDFDict[],
  radio: boolean,
): number {
  let repaired = 0;
  for (const widget of widgets) {
    const ap = getDict(widget, 'AP');
    const normal = ap && getDict(ap, 'N');
    const box = widgetBox(widget);
    if (!ap || !normal || !box) continue;
    const offStream = normal.lookup(OFF);
    // Only the state a fill turns on: a second non-Off key (fw9 2018's empty /N) is an off look-alike.
    const state = onState(widget);
    const on = state && normal.lookup(state);
    if (!state) continue;
    // An on-state that is no stream at all (pdflatex writes /Yes << >>) draws nothing anywhere.
    if (
      on instanceof PDFStream &&
      brokenOnAppearance(on, markOf(widget, radio), offStream instanceof PDFStream ? offStream : undefined) ===
        undefined
    )
      continue;
    // Fresh /AP and /N dictionaries: shared ones may serve widgets of other sizes.
    const newNormal = ctx.obj({});
    for (const [k, v] of normal.entries()) newNormal.set(k, v);
    const under = reusableOff(normal, box);
    const mark = markStream(ctx, fonts, widget, box, radio, under);
    newNormal.set(state, mark);
    const newAp = ctx.obj({});
    for (const [k, v] of ap.entries()) newAp.set(k, v);
    newAp.set(N('N'), newNormal);
    // The pressed look (/D) of that state, when it is just as broken, shows the same mark.
    const down = getDict(ap, 'D');
    const downOn = down?.lookup(state);
    const downOff = down?.lookup(OFF);
    if (
      down &&
      downOn instanceof PDFStream &&
      brokenOnAppearance(downOn, markOf(widget, radio), downOff instanceof PDFStream ? downOff : undefined)
    ) {
      const newDown = ctx.obj({});
      for (const [k, v] of down.entries()) newDown.set(k, v);
      newDown.set(state, mark);
      newAp.set(N('D'), newDown);
    }
    widget.set(N('AP'), newAp);
    repaired++;
  }
  return repaired;
}
