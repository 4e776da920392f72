// Checkboxes and radio buttons. A button shows the appearance named by each widget's /AS, so
// filling means picking the right on-state name ("Yes", "1", "On", an /Opt index "0", or a
// Shift-JIS byte string) from the widget's own /AP /N and writing that very name object to /V and
// /AS. We never build a state name from caller text. Widgets without appearances get generated ones.
import { PDFArray, type PDFDict, PDFName, PDFNumber, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import { brokenOnAppearance } from './appearance-check.js';
import { formXObject, frameOps, widgetBox, type WidgetBox } from './appearance-stream.js';
import { num } from '../content-ops.js';
import type { RawField } from '../field-tree.js';
import { FF, fieldFlags, fieldLabel, setFieldValue, type FillContext } from '../fill/fill-context.js';
import { N, getDict, inherited, nameReadings, textOf } from '../pdf-objects.js';
import { StandardFonts, type PDFFont } from '@cantoo/pdf-lib';

const OFF = PDFName.of('Off');

/** A widget's on-state: a non-Off key of /AP /N that is really a stream (fw9 has a bogus /N font). */
function onState(widget: PDFDict): PDFName | undefined {
  const n = getDict(widget, 'AP') && getDict(getDict(widget, 'AP')!, 'N');
  if (!n) return undefined;
  const down = getDict(getDict(widget, 'AP')!, 'D');
  const candidates = n.keys().filter((k) => k.decodeText() !== 'Off' && n.lookup(k) instanceof PDFStream);
  return candidates.find((k) => down?.has(k)) ?? candidates[0] ?? n.keys().find((k) => k.decodeText() !== 'Off');
}

/** The ZapfDingbats character the widget asks for (/MK /CA), else a check or, for radios, a dot. */
function markOf(widget: PDFDict, radio: boolean): string {
  const mk = getDict(widget, 'MK');
  return (mk && textOf(mk.lookup(N('CA'))))?.slice(0, 1) || (radio ? 'l' : '4');
}

let dingbatByCode: Map<number, string> | undefined;

/** The Unicode character pdf-lib's ZapfDingbats font encodes as the code of `char`. */
function dingbat(font: PDFFont, char: string): string | undefined {
  if (!dingbatByCode) {
    const encoding = (font as unknown as { embedder?: { encoding?: EncodingLike } }).embedder?.encoding;
    if (!encoding) return undefined;
    dingbatByCode = new Map();
    for (const cp of encoding.supportedCodePoints)
      dingbatByCode.set(encoding.encodeUnicodeCodePoint(cp).code, String.fromCodePoint(cp));
  }
  return dingbatByCode.get(char.charCodeAt(0));
}

interface EncodingLike {
  supportedCodePoints: number[];
  encodeUnicodeCodePoint(cp: number): { code: number };
}

/**
 * A ZapfDingbats mark (/MK /CA, default check or dot) over `under` (the widget's own Off
 * appearance, drawn as an XObject) or, without it, the background and border of /MK.
 */
function markStream(fc: FillContext, widget: PDFDict, box: WidgetBox, radio: boolean, under?: PDFRef): PDFRef {
  const font = fc.fonts.standardFont(StandardFonts.ZapfDingbats);
  // /MK /CA is a character code of ZapfDingbats' own encoding ('4' is the check, 'l' the dot);
  // pdf-lib measures and encodes Unicode (U+2714, U+25CF), so the code is mapped back first.
  let text = dingbat(font, markOf(widget, radio)) ?? (radio ? '\u25cf' : '\u2714');
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
  const res = fc.ctx.obj(under ? { Font: { ZaDb: font.ref }, XObject: { Off: under } } : { Font: { ZaDb: font.ref } });
  return formXObject(widget, box, on, res);
}

/** Draws a ZapfDingbats mark (/MK /CA, default check or dot) as the on appearance of a bare widget. */
function ensureAppearance(fc: FillContext, widget: PDFDict, stateName: string, radio: boolean): PDFName | undefined {
  const existing = onState(widget);
  if (existing) return existing;
  const box = widgetBox(widget);
  if (!box) return undefined;
  const name = PDFName.of(stateName);
  const normal = fc.ctx.obj({});
  normal.set(name, markStream(fc, widget, box, radio));
  normal.set(OFF, formXObject(widget, box, frameOps(box)));
  widget.set(N('AP'), fc.ctx.obj({ N: normal }));
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
 * Replaces on-appearances that show no proper mark (empty, a font missing from their resources,
 * a check character in a non-Dingbats font, identical to Off) with a ZapfDingbats mark drawn over
 * the widget's own Off appearance. The state names stay as they are (values map to them). Returns
 * how many widgets were repaired. Data-independent: a prepared template runs it once.
 */
export function repairOnAppearances(fc: FillContext, field: RawField): number {
  const radio = !!(fieldFlags(field) & FF.radio);
  let repaired = 0;
  for (const widget of field.widgets) {
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
    const newNormal = fc.ctx.obj({});
    for (const [k, v] of normal.entries()) newNormal.set(k, v);
    const under = reusableOff(normal, box);
    const mark = markStream(fc, widget, box, radio, under);
    newNormal.set(state, mark);
    const newAp = fc.ctx.obj({});
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
      const newDown = fc.ctx.obj({});
      for (const [k, v] of down.entries()) newDown.set(k, v);
      newDown.set(state, mark);
      newAp.set(N('D'), newDown);
    }
    widget.set(N('AP'), newAp);
    repaired++;
  }
  return repaired;
}

/** Sets the field to `state` (a name some widgets carry) or Off; widgets without it go Off. */
function applyState(field: RawField, pick: (widget: PDFDict, index: number) => PDFName | undefined): PDFName {
  let value: PDFName = OFF;
  field.widgets.forEach((w, i) => {
    const s = pick(w, i);
    if (s && value === OFF) value = s;
    w.set(N('AS'), s ?? OFF);
  });
  setFieldValue(field, value);
  return value;
}

export function fillCheckbox(fc: FillContext, field: RawField, checked: boolean, hint?: string): void {
  if (!checked) {
    applyState(field, () => undefined);
    return;
  }
  const states = field.widgets.map((w) => ensureAppearance(fc, w, hint ?? 'Yes', false));
  // Widgets with different on-states (IRS filing-status boxes) act as a radio group: "checked"
  // turns on the first state, i.e. the widgets that share it, as viewers do for that /V.
  const on = (hint !== undefined && states.find((s) => s && nameReadings(s).includes(hint))) || states.find(Boolean);
  if (!on) fc.warnings.push(`field "${fieldLabel(fc, field)}": the checkbox has no on-state to show`);
  applyState(field, (_, i) => (states[i] === on ? on : undefined));
}

function matches(name: PDFName, wanted: string): boolean {
  return nameReadings(name).includes(wanted);
}

/**
 * Selects the radio option `value`: resolved through the analysis (option -> state name), then the
 * field's /Opt (option i = widget i), then as a state name itself. Returns false when nothing matched.
 */
export function fillRadio(fc: FillContext, field: RawField, value: string | null, stateHint?: string): boolean {
  if (value === null) {
    applyState(field, () => undefined);
    return true;
  }
  const states = field.widgets.map((w) => onState(w));
  let target: ((w: PDFDict, i: number) => boolean) | undefined;
  const byName = (wanted: string) => states.some((s) => s && matches(s, wanted));
  if (stateHint !== undefined && byName(stateHint)) {
    target = (_, i) => !!states[i] && matches(states[i]!, stateHint);
  } else {
    const opt = inherited(field.dict, 'Opt');
    const optIndex =
      opt instanceof PDFArray ? Array.from({ length: opt.size() }, (_, i) => textOf(opt.lookup(i))).indexOf(value) : -1;
    if (optIndex >= 0 && states[optIndex]) {
      const chosen = states[optIndex]!;
      // Buttons sharing the chosen state turn on together only when the field says so.
      const unison = !!(fieldFlags(field) & FF.radiosInUnison);
      target = (_, i) => i === optIndex || (unison && !!states[i] && states[i] === chosen);
    } else if (byName(value)) {
      target = (_, i) => !!states[i] && matches(states[i]!, value);
    }
  }
  if (!target) {
    fc.warnings.push(`field "${fieldLabel(fc, field)}": no button has the option "${value}"; left unchanged`);
    return false;
  }
  const t = target;
  applyState(field, (w, i) => (t(w, i) ? states[i] : undefined));
  return true;
}
