// Turns one grouped terminal field into the engine's AnalysedField (without its key `name`):
// type inference, inherited flags and limits, options and appearance state names.
import { PDFArray, PDFName, PDFNumber, type PDFContext, type PDFDict, type PDFObject } from '@cantoo/pdf-lib';
import { parseFormatAction } from './format-action.js';
import { fieldLabel, placedWidgets } from './placement.js';
import type { RawField } from '../field-tree.js';
import {
  N,
  asDict,
  deref,
  getDict,
  getNameText,
  inherited,
  keyNames,
  nameText,
  resolve,
  streamText,
  textOf,
} from '../pdf-objects.js';
import type { AnalysedField, FieldDetail, FieldFormat, FieldType } from '../types.js';

// Field flag bits (PDF 32000-1, tables 221, 226, 228, 230), 1-based bit n = 1 << (n - 1).
const FF = {
  readOnly: 1 << 0,
  required: 1 << 1,
  multiline: 1 << 12,
  password: 1 << 13,
  comb: 1 << 24, // Tx
  radio: 1 << 15,
  pushbutton: 1 << 16, // Btn
  combo: 1 << 17,
  edit: 1 << 18,
  multiSelect: 1 << 21, // Ch
} as const;

/** Longest format script we read; AF* calls are a few dozen bytes. */
const MAX_SCRIPT_BYTES = 64 * 1024;

/** JavaScript of an /AA /F action on the field, its widgets, or (inherited) an ancestor. */
function formatScript(ctx: PDFContext, raw: RawField, maxDepth: number): string | undefined {
  const holders = [raw.dict, ...raw.widgets];
  let aa: PDFDict | undefined;
  for (const h of holders) if ((aa = getDict(h, 'AA')) && aa.has(N('F'))) break;
  if (!aa?.has(N('F'))) aa = asDict(ctx, inherited(raw.dict, 'AA', maxDepth + 1));
  const action = aa && getDict(aa, 'F');
  if (!action) return undefined;
  const js = resolve(action, 'JS');
  return textOf(js) ?? streamText(ctx, js, MAX_SCRIPT_BYTES);
}

/**
 * On-state names of one widget: the keys of /AP /N except Off. When /N lacks Off but /D has it,
 * /N keys missing from /D are stray states (W-9 2018 draws an empty "/N" state), so drop them.
 */
export function widgetOnStates(widget: PDFDict): string[] {
  const ap = getDict(widget, 'AP');
  const normal = ap && getDict(ap, 'N');
  if (!normal) return [];
  let states = keyNames(normal).filter((s) => s !== 'Off');
  const down = getDict(ap, 'D');
  if (states.length > 1 && !normal.has(N('Off')) && down?.has(N('Off'))) {
    const downStates = new Set(keyNames(down));
    const kept = states.filter((s) => downStates.has(s));
    if (kept.length > 0) states = kept;
  }
  return states;
}

/** An integer number object, else undefined. */
function numberOf(ctx: PDFContext, obj: PDFObject | undefined): number | undefined {
  const v = deref(ctx, obj);
  return v instanceof PDFNumber && Number.isFinite(v.asNumber()) ? Math.trunc(v.asNumber()) : undefined;
}

function textArray(ctx: PDFContext, obj: PDFObject | undefined): string[] | undefined {
  const arr = deref(ctx, obj);
  if (!(arr instanceof PDFArray)) return undefined;
  return arr.asArray().map((e) => textOf(deref(ctx, e)) ?? '');
}

/** Choice /Opt: export values, plus display labels when any entry is an [export display] pair. */
function choiceOptions(ctx: PDFContext, opt: PDFObject | undefined): { values: string[]; labels?: string[] } {
  const arr = deref(ctx, opt);
  if (!(arr instanceof PDFArray)) return { values: [] };
  const values: string[] = [];
  const labels: string[] = [];
  let paired = false;
  for (const entry of arr.asArray()) {
    const e = deref(ctx, entry);
    if (e instanceof PDFArray) {
      paired = true;
      const exp = textOf(deref(ctx, e.get(0))) ?? '';
      values.push(exp);
      labels.push(e.size() > 1 ? (textOf(deref(ctx, e.get(1))) ?? exp) : exp);
    } else {
      const t = textOf(deref(ctx, e)) ?? '';
      values.push(t);
      labels.push(t);
    }
  }
  return paired ? { values, labels } : { values };
}

/**
 * One option per choice a caller can make: widget i offers /Opt[i] (else its state name). Kids
 * sharing both value and state (RadiosInUnison, one button drawn twice) are one choice; buttons
 * sharing an export value but not a state (/Opt ["Sì", "Sì"]) each stay selectable, listed as
 * "Sì", "Sì (2)", ... (docs/decisions.md).
 */
function radioOptions(raw: RawField, opt: string[] | undefined) {
  const values: string[] = [];
  const optionStates: string[] = [];
  raw.widgets.forEach((w, i) => {
    const state = widgetOnStates(w)[0];
    if (state === undefined) return; // no appearance: nothing a value could switch on
    const value = opt && i < opt.length ? opt[i] : state;
    if (values.some((v, k) => v === value && optionStates[k] === state)) return;
    values.push(value);
    optionStates.push(state);
  });
  const taken = new Set(values);
  const options = values.map((v, k) => {
    if (values.indexOf(v) === k) return v;
    let n = values.slice(0, k + 1).filter((x) => x === v).length;
    while (taken.has(`${v} (${n})`)) n++;
    taken.add(`${v} (${n})`);
    return `${v} (${n})`;
  });
  return { options, optionStates };
}

/** The field's public description and engine detail, or undefined when it is not fillable. */
export function describeField(
  ctx: PDFContext,
  raw: RawField,
  maxDepth: number,
): Omit<AnalysedField, 'name'> | undefined {
  // Some producers put /FT, /Ff or /MaxLen on the kid widgets only: fall back to the first one.
  const key = (k: string) =>
    inherited(raw.dict, k, maxDepth + 1) ?? (raw.widgets[0] !== raw.dict ? resolve(raw.widgets[0], k) : undefined);
  const ftObj = deref(ctx, key('FT'));
  const ft = ftObj instanceof PDFName ? nameText(ftObj) : undefined;
  if (ft !== 'Tx' && ft !== 'Btn' && ft !== 'Ch' && ft !== 'Sig') return undefined;
  // Flags are an unsigned 32-bit field; some producers write them as negative numbers.
  const ff = (numberOf(ctx, key('Ff')) ?? 0) >>> 0;
  if (ft === 'Btn' && ff & FF.pushbutton) return undefined;

  const detail: FieldDetail = { ft, widgetCount: raw.widgets.length, inAcroFormFields: raw.inAcroFormFields };
  let type: FieldType;
  let options: string[] | undefined;
  let maxLength: number | undefined;
  let format: FieldFormat | undefined;

  if (ft === 'Tx' || ft === 'Ch') format = parseFormatAction(formatScript(ctx, raw, maxDepth));
  if (ft === 'Tx') {
    // AFTime stays text: callers send "14:30", which is not a date. detail.format keeps the pattern.
    type =
      format?.kind === 'date' ? 'date' : format?.kind === 'number' || format?.kind === 'percent' ? 'number' : 'text';
    const n = numberOf(ctx, key('MaxLen'));
    if (n !== undefined && n > 0 && n <= 0x7fffffff) maxLength = n;
    detail.multiline = Boolean(ff & FF.multiline);
    detail.comb = Boolean(ff & FF.comb);
    detail.password = Boolean(ff & FF.password);
  } else if (ft === 'Ch') {
    type = 'dropdown';
    const { values, labels } = choiceOptions(ctx, inherited(raw.dict, 'Opt', maxDepth + 1));
    options = values;
    if (labels) detail.optionLabels = labels;
    detail.listBox = !(ff & FF.combo);
    detail.editable = Boolean(ff & FF.combo && ff & FF.edit);
    detail.multiSelect = Boolean(ff & FF.multiSelect);
  } else if (ft === 'Sig') {
    type = 'signature';
  } else if (ff & FF.radio) {
    type = 'radio';
    const r = radioOptions(raw, textArray(ctx, inherited(raw.dict, 'Opt', maxDepth + 1)));
    options = r.options;
    detail.optionStates = r.optionStates;
  } else {
    type = 'checkbox';
    const states = [...new Set(raw.widgets.flatMap((w) => widgetOnStates(w)))];
    if (states.length === 0) {
      // No appearance to read: use a non-Off /AS, else the conventional "Yes".
      const as = raw.widgets.map((w) => getNameText(w, 'AS')).find((s) => s && s !== 'Off');
      states.push(as ?? 'Yes');
    }
    detail.onStates = states;
  }
  if (format) detail.format = format;

  const placed = placedWidgets(ctx, raw);
  if (placed.length === 0) return undefined; // on no page: invisible, nothing to fill or draw
  return {
    type,
    required: Boolean(ff & FF.required),
    ...(maxLength !== undefined ? { maxLength } : {}),
    ...(options !== undefined ? { options } : {}),
    label: fieldLabel(raw),
    pdfMeta: {
      originalName: raw.fullName,
      page: placed[0].page,
      ...(ff & FF.readOnly ? { readOnly: true } : {}),
      rect: placed[0].rect,
      ...(placed.length > 1 ? { widgets: placed } : {}),
      ...(detail.editable ? { editable: true as const } : {}),
    },
    detail,
  };
}
