// What every session of a form shares, built once per template (prepare.ts) rather than per render: the
// form model pdf.js's layer is given (fields with their actions, containers, document actions), the ids
// the sandbox knows fields by, what cannot run on a server, and the key of the form's pristine context.
// A render adds only its own part (run-scripts.ts): check boxes' states, the values to commit, the steps.
import { createHash } from 'node:crypto';
import type { FieldFormat } from '../types.js';
import type { FormScripts, ScriptField } from './form-model.js';
import { OWN_ACTIONS, VALUES_ACTION } from './sandbox-setup.js';
import { type SpecialCheck, specialKeystroke } from './special-check.js';

export const DOC_CALC_OFF = OWN_ACTIONS[0];
export const DOC_CALCULATE = OWN_ACTIONS[1];
export { VALUES_ACTION as DOC_VALUES };

/** A script left out because it names something a server cannot do. */
export interface UnsupportedScript {
  /** PDF name of its field, or undefined for a document script */
  field?: string;
  /** the field event (Calculate, Validate...) or the document script's label */
  what: string;
  api: string;
}

export interface SessionPlan {
  scripts: FormScripts;
  /** pdf.js's field objects by PDF name; check boxes and radio buttons hold the template's state */
  objects: Record<string, Record<string, unknown>[]>;
  docActions: Record<string, string[]>;
  /** document scripts to run first, as steps, with the label warnings name them by */
  docSteps: { name: string; label: string }[];
  /** sandbox id -> PDF name, and back */
  names: Map<string, string>;
  ids: Map<string, string>;
  /** calculated fields, by sandbox id */
  calculated: Set<string>;
  /** calculation order, by sandbox id */
  calculationOrder: string[];
  /** fields with a keystroke or validate script that will run (a commit goes through them) */
  checked: Set<string>;
  /** check boxes and radio buttons: their state is part of the form data */
  buttons: ScriptField[];
  /**
   * Fields whose caller value needs a session when set: a keystroke or validate script other than one
   * of Acrobat's native checks alone (which the render data already makes).
   */
  needsSession: Set<string>;
  /**
   * Fields whose value a session may set without its checks: no validate script, and no keystroke script
   * ('any') or one of Acrobat's native checks, for values render-data formatted as that kind.
   */
  setDirectly: Map<string, FieldFormat['kind'] | 'any'>;
  /**
   * Fields whose only check is AFSpecial_Keystroke or AFSpecial_KeystrokeEx alone: a value it accepts
   * (special-check.ts) needs no session and may be set directly; one it refuses is committed in a session,
   * which reports it.
   */
  specialChecks: Map<string, SpecialCheck>;
  unsupported: UnsupportedScript[];
  /** hash of the form data without the buttons' states */
  key: string;
}

/**
 * APIs a script may call that a server cannot honour (network, mail, XFA, dialogs with answers): pdf.js
 * makes most of them silent no-ops, which would leave a value silently wrong, so such scripts do not run.
 */
const UNSUPPORTED =
  /\b(xfa|SOAP|Net\s*\.\s*(?:HTTP|SOAP|Discovery)|mailMsg|mailDoc|mailForm|submitForm|launchURL|getURL|importDataObject|importTextData|ADBC|app\s*\.\s*response|execMenuItem)\b/;

function unsupportedApi(code: string): string | undefined {
  return UNSUPPORTED.exec(code)?.[1];
}

/**
 * Acrobat's own number, percent, date and time keystroke checks, called alone: the render data's
 * validation already refuses what they refuse (a number field takes numbers, a date field dates), so a
 * form whose only scripts are these does not pay a script context on every render. Any other check (a
 * range, a custom script) runs in the sandbox; so does every check once a form computes.
 */
const NATIVE_CHECK =
  /^\s*(?:AFNumber_Keystroke|AFPercent_Keystroke|AFDate_KeystrokeEx|AFDate_Keystroke|AFTime_Keystroke)\s*\([^;{}]*\)\s*;?\s*$/;

/** The format kind whose values render-data checks as each native keystroke call would. */
const NATIVE_KIND: Record<string, FieldFormat['kind']> = {
  AFNumber: 'number',
  AFPercent: 'percent',
  AFDate: 'date',
  AFTime: 'time',
};

/** Whether a keystroke script is one of Acrobat's native checks alone (the render data makes it). */
export function nativeCheck(code: string): boolean {
  return NATIVE_CHECK.test(code);
}

/** Whether a render of the form may open a session whatever its values (AFSpecial checks aside). */
export function mayOpenSession(plan: SessionPlan): boolean {
  return plan.calculationOrder.length > 0 || plan.needsSession.size > 0;
}

function needsSandbox(code: string | undefined): boolean {
  return code !== undefined && code.trim() !== '' && !NATIVE_CHECK.test(code);
}

/** How a field's value may skip its checks in a session (see SessionPlan.setDirectly). */
function directly(f: ScriptField): FieldFormat['kind'] | 'any' | undefined {
  if (f.actions.Validate) return undefined;
  const code = f.actions.Keystroke;
  if (code === undefined || code.trim() === '') return 'any';
  return NATIVE_CHECK.test(code) ? NATIVE_KIND[code.trim().split('_')[0]] : undefined;
}

const isButton = (f: ScriptField) => f.kind === 'checkbox' || f.kind === 'radiobutton';

function pdfjsField(f: ScriptField, id: string, actions: Record<string, string[]>): Record<string, unknown> {
  const base = {
    id,
    name: f.name,
    type: f.kind,
    value: f.value,
    actions,
    readonly: f.readOnly,
    page: 0,
    rect: [0, 0, 0, 0],
  };
  if (isButton(f)) return { ...base, exportValues: f.exportValues?.[0] ?? 'Yes' };
  if (f.kind === 'combobox' || f.kind === 'listbox') {
    return { ...base, items: (f.items ?? []).map(([exportValue, displayValue]) => ({ exportValue, displayValue })) };
  }
  return base;
}

/** The plan of a form's sessions; `skip` leaves out the scripts of those fields (a retry after a budget). */
export function planSessions(scripts: FormScripts, skip: ReadonlySet<string> = new Set()): SessionPlan {
  const names = new Map<string, string>();
  const ids = new Map<string, string>();
  const calculated = new Set<string>();
  const checked = new Set<string>();
  const unsupported: UnsupportedScript[] = [];
  const objects: Record<string, Record<string, unknown>[]> = {};
  scripts.fields.forEach((f, i) => {
    const id = `f${i}`;
    names.set(id, f.name);
    ids.set(f.name, id);
    const actions: Record<string, string[]> = {};
    for (const [event, code] of Object.entries(f.actions)) {
      const api = unsupportedApi(code);
      if (api && event !== 'Format') {
        unsupported.push({ field: f.name, what: event, api });
        continue;
      }
      if (skip.has(f.name) && event !== 'Format') continue;
      actions[event] = [code];
    }
    if (actions.Calculate) calculated.add(id);
    if (actions.Keystroke || actions.Validate) checked.add(f.name);
    // The data holds the template's values (the same for every render of the form, so its context is made
    // once); a caller's text and choices arrive as steps. Buttons take theirs in the data (run-scripts.ts):
    // committing a button's value is an export-value dance pdf.js does not need.
    objects[f.name] = [pdfjsField(f, id, actions)];
  });
  // Parent fields ("row" of "row.0", "row.1") as pdf.js's containers: getField("row").getArray() finds them.
  const parents = new Map<string, string[]>();
  for (const [id, name] of names) {
    const parts = name.split('.');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('.');
      if (!objects[parent]) parents.set(parent, [...(parents.get(parent) ?? []), id]);
    }
  }
  let p = 0;
  for (const [parent, kidIds] of parents) objects[parent] = [{ id: `p${p++}`, name: parent, type: '', kidIds }];

  const docActions: Record<string, string[]> = {
    [DOC_CALC_OFF]: ['calculate = false;'],
    [DOC_CALCULATE]: ['calculate = true; calculateNow();'],
  };
  const docSteps: SessionPlan['docSteps'] = [];
  scripts.documentScripts.forEach((s, i) => {
    const label = `document script "${s.name}"`;
    if (skip.has(label)) return;
    const api = unsupportedApi(s.code);
    if (api) {
      unsupported.push({ what: label, api });
      return;
    }
    const name = `formcast:doc:${i}`;
    docActions[name] = [s.code];
    docSteps.push({ name, label });
  });
  const calculationOrder = scripts.calculationOrder.map((n) => ids.get(n)!).filter((id) => calculated.has(id));
  const needsSession = new Set<string>();
  const setDirectly = new Map<string, FieldFormat['kind'] | 'any'>();
  const specialChecks = new Map<string, SpecialCheck>();
  for (const f of scripts.fields) {
    const special = f.actions.Validate ? undefined : specialKeystroke(f.actions.Keystroke);
    if (special !== undefined) specialChecks.set(f.name, special);
    else if (needsSandbox(f.actions.Keystroke) || needsSandbox(f.actions.Validate)) needsSession.add(f.name);
    const how = directly(f);
    if (how) setDirectly.set(f.name, how);
  }
  const key = createHash('sha256')
    .update(JSON.stringify({ objects, calculationOrder, docActions }))
    .digest('base64url');
  return {
    scripts,
    objects,
    docActions,
    docSteps,
    names,
    ids,
    calculated,
    calculationOrder,
    checked,
    buttons: scripts.fields.filter(isButton),
    needsSession,
    setDirectly,
    specialChecks,
    unsupported,
    key,
  };
}

/**
 * The key and the form data of a session whose check boxes and radio buttons are in `states` (PDF name
 * -> state; the others keep the template's). The data is made only when the sandbox asks for it: a form
 * it has seen with these states already has its context.
 */
export function sessionContext(
  plan: SessionPlan,
  states: ReadonlyMap<string, string | string[]>,
): { key: string; data: () => unknown } {
  const own = plan.buttons.filter((f) => states.has(f.name) && states.get(f.name) !== f.value);
  const stateKey = own.length
    ? `:${createHash('sha256')
        .update(JSON.stringify(own.map((f) => [f.name, states.get(f.name)])))
        .digest('base64url')}`
    : '';
  const data = () => {
    const objects = { ...plan.objects };
    for (const f of own) objects[f.name] = [{ ...objects[f.name][0], value: states.get(f.name) }];
    return {
      objects,
      calculationOrder: plan.calculationOrder,
      appInfo: { platform: 'UNIX', language: 'en-US' },
      docInfo: { actions: plan.docActions, numPages: 1 },
    };
  };
  return { key: plan.key + stateKey, data };
}
