// Checkboxes and radio buttons. A button shows the appearance named by each widget's /AS, so
// filling means picking the right on-state name ("Yes", "1", "On", an /Opt index "0", or a
// Shift-JIS byte string) from the widget's own /AP /N and writing that very name object to /V and
// /AS. We never build a state name from caller text. Widgets without appearances get generated ones
// (drawn by appearance/appearance-button.ts).
import { PDFArray, type PDFDict, type PDFName } from '@cantoo/pdf-lib';
import { OFF, ensureOnAppearance, onState, repairButtonAppearances } from '../appearance/appearance-button.js';
import type { RawField } from '../field-tree.js';
import { FF, fieldFlags, fieldLabel, setFieldValue, type FillContext } from './fill-context.js';
import { inherited, nameText, setChanged, textOf } from '../pdf-objects.js';

/**
 * Replaces the field's on-appearances that show no proper mark (appearance-check.ts) with a
 * ZapfDingbats mark; returns how many widgets were repaired. Data-independent: a prepared template
 * runs it once.
 */
export function repairOnAppearances(fc: FillContext, field: RawField): number {
  return repairButtonAppearances(fc.ctx, fc.fonts, field.widgets, !!(fieldFlags(field) & FF.radio));
}

/** Sets the field to `state` (a name some widgets carry) or Off; widgets without it go Off. */
function applyState(field: RawField, pick: (widget: PDFDict, index: number) => PDFName | undefined): PDFName {
  let value: PDFName = OFF;
  field.widgets.forEach((w, i) => {
    const s = pick(w, i);
    if (s && value === OFF) value = s;
    setChanged(w, 'AS', s ?? OFF); // an unticked box already Off stays untouched
  });
  setFieldValue(field, value);
  return value;
}

export function fillCheckbox(fc: FillContext, field: RawField, checked: boolean, hint?: string): void {
  if (!checked) {
    applyState(field, () => undefined);
    return;
  }
  const states = field.widgets.map((w) => ensureOnAppearance(fc.ctx, fc.fonts, w, hint ?? 'Yes', false));
  // Widgets with different on-states (IRS filing-status boxes) act as a radio group: "checked"
  // turns on the first state, i.e. the widgets that share it, as viewers do for that /V.
  const on = (hint !== undefined && states.find((s) => s && matches(s, hint))) || states.find(Boolean);
  if (!on) fc.warnings.push(`field "${fieldLabel(fc, field)}": the checkbox has no on-state to show`);
  applyState(field, (_, i) => (states[i] === on ? on : undefined));
}

/** A state is found again by the one decoding the analyser listed it with (nameText), never re-encoded. */
function matches(name: PDFName, wanted: string): boolean {
  return nameText(name) === wanted;
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
