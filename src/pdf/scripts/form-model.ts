// The form's scripts as plain data: each field's /AA actions (keystroke, format, validate, calculate),
// the calculation order and the document-level scripts (/Names /JavaScript). Read once per template,
// before preparation strips the active content from the base file; run-scripts.ts hands it to the sandbox.
import { PDFArray, PDFDict, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import {
  MAX_FIELD_DEPTH,
  N,
  asDict,
  getArray,
  getDict,
  inherited,
  inheritedNumber,
  resolve,
  streamText,
  textOf,
} from '../pdf-objects.js';

/** pdf.js's names of the field events we run. */
export type ScriptEvent = 'Keystroke' | 'Format' | 'Validate' | 'Calculate';

/** How pdf.js's scripting layer models a field (its `type`). */
export type ScriptFieldKind = 'text' | 'checkbox' | 'radiobutton' | 'combobox' | 'listbox' | 'button' | 'signature';

export interface ScriptField {
  /** fully qualified PDF name */
  name: string;
  kind: ScriptFieldKind;
  /** the template's /V as a script sees it ("" when empty; a check box's state name, "Off" when off) */
  value: string | string[];
  actions: Partial<Record<ScriptEvent, string>>;
  /** check boxes and radio buttons: their on-state names */
  exportValues?: string[];
  /** choice fields: [export, display] pairs of /Opt */
  items?: [string, string][];
  readOnly: boolean;
}

export interface FormScripts {
  fields: ScriptField[];
  /** names of the fields with a calculate script, in the order they run (/CO first, then the rest) */
  calculationOrder: string[];
  /** document-level scripts, by name, in name-tree order */
  documentScripts: { name: string; code: string }[];
}

/** Longest script we read: real calculate scripts are a few hundred bytes; library scripts tens of KB. */
const MAX_SCRIPT_BYTES = 512 * 1024;
/** Most document-level scripts read (name-tree entries). */
const MAX_DOC_SCRIPTS = 256;
const EVENT_KEYS: [ScriptEvent, string][] = [
  ['Keystroke', 'K'],
  ['Format', 'F'],
  ['Validate', 'V'],
  ['Calculate', 'C'],
];

/** The JavaScript of an action dictionary (its /JS string or stream), following /Next chains a little. */
function actionScript(ctx: PDFContext, action: PDFDict | undefined): string | undefined {
  const parts: string[] = [];
  let cur = action;
  for (let i = 0; cur && i < 8; i++) {
    if (cur.lookup(N('S'))?.toString() === '/JavaScript') {
      const js = resolve(cur, 'JS');
      const code = textOf(js) ?? streamText(ctx, js, MAX_SCRIPT_BYTES);
      if (code?.trim()) parts.push(code);
    }
    const next = cur.lookup(N('Next'));
    cur = next instanceof PDFDict ? next : next instanceof PDFArray ? asDict(ctx, next.get(0)) : undefined;
  }
  return parts.length ? parts.join('\n') : undefined;
}

/** The field's additional-actions dictionary holding `key`: on the field, a widget, or an ancestor. */
function actionOf(ctx: PDFContext, field: RawField, key: string): PDFDict | undefined {
  for (const h of [field.dict, ...field.widgets]) {
    const aa = getDict(h, 'AA');
    const a = aa && getDict(aa, key);
    if (a) return a;
  }
  const aa = asDict(ctx, inherited(field.dict, 'AA', MAX_FIELD_DEPTH));
  return aa && getDict(aa, key);
}

const BTN_RADIO = 1 << 15;
const BTN_PUSH = 1 << 16;
const CH_COMBO = 1 << 17;

function kindOf(field: RawField): ScriptFieldKind | undefined {
  const ft = inherited(field.dict, 'FT')?.toString();
  const ff = inheritedNumber(field.dict, 'Ff') ?? 0;
  if (ft === '/Tx') return 'text';
  if (ft === '/Ch') return ff & CH_COMBO ? 'combobox' : 'listbox';
  if (ft === '/Sig') return 'signature';
  if (ft === '/Btn') return ff & BTN_PUSH ? 'button' : ff & BTN_RADIO ? 'radiobutton' : 'checkbox';
  return undefined;
}

function fieldValue(obj: PDFObject | undefined): string | string[] {
  if (obj instanceof PDFArray) {
    const out: string[] = [];
    for (let i = 0; i < obj.size(); i++) {
      const t = textOf(obj.lookup(i));
      if (t !== undefined) out.push(t);
    }
    return out;
  }
  return textOf(obj) ?? '';
}

function onStates(field: RawField): string[] {
  const states: string[] = [];
  for (const w of field.widgets) {
    const normal = getDict(getDict(w, 'AP') ?? w, 'N');
    for (const [k] of normal?.entries() ?? []) {
      const s = textOf(k);
      if (s && s !== 'Off' && !states.includes(s)) states.push(s);
    }
  }
  return states;
}

function choiceItems(field: RawField): [string, string][] | undefined {
  const opt = inherited(field.dict, 'Opt');
  if (!(opt instanceof PDFArray)) return undefined;
  const items: [string, string][] = [];
  for (let i = 0; i < opt.size(); i++) {
    const o = opt.lookup(i);
    if (o instanceof PDFArray) {
      const exp = textOf(o.lookup(0)) ?? '';
      items.push([exp, textOf(o.lookup(1)) ?? exp]);
    } else {
      const t = textOf(o) ?? '';
      items.push([t, t]);
    }
  }
  return items;
}

/** Document-level scripts of the /Names /JavaScript name tree (bounded, cycle-safe). */
function documentScripts(ctx: PDFContext, catalog: PDFDict): { name: string; code: string }[] {
  const root = getDict(getDict(catalog, 'Names') ?? catalog, 'JavaScript');
  const out: { name: string; code: string }[] = [];
  const seen = new Set<PDFDict>();
  const walk = (node: PDFDict, depth: number) => {
    if (depth > 32 || seen.has(node) || out.length >= MAX_DOC_SCRIPTS) return;
    seen.add(node);
    const names = getArray(node, 'Names');
    for (let i = 0; names && i + 1 < names.size() && out.length < MAX_DOC_SCRIPTS; i += 2) {
      const code = actionScript(ctx, asDict(ctx, names.get(i + 1)));
      if (code) out.push({ name: textOf(names.lookup(i)) ?? `script ${out.length + 1}`, code });
    }
    const kids = getArray(node, 'Kids');
    for (let i = 0; kids && i < kids.size(); i++) {
      const kid = asDict(ctx, kids.get(i));
      if (kid) walk(kid, depth + 1);
    }
  };
  if (root && getDict(catalog, 'Names')) walk(root, 0);
  return out;
}

/** /AcroForm /CO, then every other field with a calculate script in field order. */
function calculationOrder(acroForm: PDFDict | undefined, fields: RawField[], calculated: Set<string>): string[] {
  const byDict = new Map<PDFDict, string>();
  for (const f of fields) byDict.set(f.dict, f.fullName);
  const order: string[] = [];
  const co = acroForm && getArray(acroForm, 'CO');
  for (let i = 0; co && i < co.size(); i++) {
    const d = co.lookup(i);
    const name = d instanceof PDFDict ? byDict.get(d) : undefined;
    if (name && calculated.has(name) && !order.includes(name)) order.push(name);
  }
  for (const f of fields) if (calculated.has(f.fullName) && !order.includes(f.fullName)) order.push(f.fullName);
  return order;
}

/**
 * The form's scripts, or undefined when it has none that compute or check a value (format scripts
 * alone need no sandbox: the values a caller sends are formatted before they reach the engine).
 */
export function readFormScripts(
  ctx: PDFContext,
  catalog: PDFDict,
  acroForm: PDFDict | undefined,
  fields: RawField[],
): FormScripts | undefined {
  const out: ScriptField[] = [];
  const seen = new Set<string>();
  let active = false;
  for (const f of fields) {
    const kind = kindOf(f);
    if (!kind || seen.has(f.fullName)) continue;
    seen.add(f.fullName);
    const actions: ScriptField['actions'] = {};
    for (const [event, key] of EVENT_KEYS) {
      const code = actionScript(ctx, actionOf(ctx, f, key));
      if (code) actions[event] = code;
    }
    if (actions.Calculate || actions.Validate || actions.Keystroke) active = true;
    const isButton = kind === 'checkbox' || kind === 'radiobutton';
    out.push({
      name: f.fullName,
      kind,
      value: isButton ? (textOf(inherited(f.dict, 'V')) ?? 'Off') : fieldValue(inherited(f.dict, 'V')),
      actions,
      exportValues: isButton ? onStates(f) : undefined,
      items: kind === 'combobox' || kind === 'listbox' ? choiceItems(f) : undefined,
      readOnly: !!((inheritedNumber(f.dict, 'Ff') ?? 0) & 1),
    });
  }
  if (!active) return undefined;
  const calculated = new Set(out.filter((f) => f.actions.Calculate).map((f) => f.name));
  return {
    fields: out,
    calculationOrder: calculationOrder(acroForm, fields, calculated),
    documentScripts: documentScripts(ctx, catalog),
  };
}
