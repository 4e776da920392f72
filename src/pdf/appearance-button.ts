// Checkboxes and radio buttons. A button shows the appearance named by each widget's /AS, so
// filling means picking the right on-state name ("Yes", "1", "On", an /Opt index "0", or a
// Shift-JIS byte string) from the widget's own /AP /N and writing that very name object to /V and
// /AS. We never build a state name from caller text. Widgets without appearances get generated ones.
import { PDFArray, PDFDict, PDFName, PDFStream } from '@cantoo/pdf-lib';
import { formXObject, frameOps, num, widgetBox } from './appearance-stream.js';
import type { RawField } from './field-tree.js';
import { FF, fieldFlags, fieldLabel, setFieldValue, type FillContext } from './fill-context.js';
import { N, getDict, inherited, nameReadings, textOf } from './fill-objects.js';
import { StandardFonts } from '@cantoo/pdf-lib';

const OFF = PDFName.of('Off');

/** A widget's on-state: a non-Off key of /AP /N that is really a stream (fw9 has a bogus /N font). */
export function onState(widget: PDFDict): PDFName | undefined {
  const n = getDict(widget, 'AP') && getDict(getDict(widget, 'AP')!, 'N');
  if (!n) return undefined;
  const down = getDict(getDict(widget, 'AP')!, 'D');
  const candidates = n.keys().filter((k) => k.decodeText() !== 'Off' && n.lookup(k) instanceof PDFStream);
  return candidates.find((k) => down?.has(k)) ?? candidates[0] ?? n.keys().find((k) => k.decodeText() !== 'Off');
}

/** Draws a ZapfDingbats mark (/MK /CA, default check or dot) as the on appearance of a bare widget. */
function ensureAppearance(fc: FillContext, widget: PDFDict, stateName: string, radio: boolean): PDFName | undefined {
  const existing = onState(widget);
  if (existing) return existing;
  const box = widgetBox(widget);
  if (!box) return undefined;
  const mk = getDict(widget, 'MK');
  const ca = (mk && textOf(mk.lookup(N('CA')))) || (radio ? 'l' : '4');
  const font = fc.fonts.standardFont(StandardFonts.ZapfDingbats);
  let text = ca.slice(0, 1);
  let w = 0;
  try {
    w = font.widthOfTextAtSize(text, 1);
  } catch {
    text = radio ? 'l' : '4';
    w = font.widthOfTextAtSize(text, 1);
  }
  const size = Math.min(box.width, box.height) * 0.8;
  const x = (box.width - w * size) / 2;
  const y = (box.height - size * 0.7) / 2;
  const on = `${frameOps(box)}\nq BT 0 g /ZaDb ${num(size)} Tf ${num(x)} ${num(y)} Td ${font.encodeText(text).toString()} Tj ET Q`;
  const res = fc.ctx.obj({ Font: { ZaDb: font.ref } });
  const name = PDFName.of(stateName);
  const normal = fc.ctx.obj({});
  normal.set(name, formXObject(widget, box, on, res));
  normal.set(OFF, formXObject(widget, box, frameOps(box)));
  widget.set(N('AP'), fc.ctx.obj({ N: normal }));
  return name;
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
    const optIndex = opt instanceof PDFArray ? Array.from({ length: opt.size() }, (_, i) => textOf(opt.lookup(i))).indexOf(value) : -1;
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
