// One render's scripts, as Acrobat runs them after a person has typed the values: the document-level
// scripts (the functions the others call), each caller value through its field's keystroke and validate
// scripts (a refusal is reported, the value stays), then the calculation order once, each calculated
// field's result through its format script. Everything runs in the sandbox (sandbox.ts); this module
// builds the session and reads what came back.
//
// A field whose script runs out of time, memory or stack is reported (SCRIPT_BUDGET) and the session is
// run again without that script, up to MAX_ATTEMPTS times, so one hostile script costs only its field.
import type { ScriptRejection, ScriptWarning, TextColor } from '../types.js';
import type { FormScripts, ScriptField } from './form-model.js';
import type { SandboxEvent, ScriptSandbox, SessionOutcome, ThreadMessage } from './sandbox.js';

/** A computed field's result: its value (written to /V) and what its format script made of it (drawn). */
export interface ComputedValue {
  value: string;
  display: string;
  /** the colour the format script gave the text (AFNumber_Format's red negatives) */
  color?: TextColor;
  /**
   * A script set event.target.hidden (forms hide a total until its lines have values): true keeps the
   * value and draws nothing; both change the widgets' Hidden flag.
   */
  hidden?: boolean;
}

export interface ScriptResults {
  computed: Map<string, ComputedValue>;
  /** calculated fields whose script failed or could not run: they keep the caller's value or go empty */
  failed: Set<string>;
  warnings: ScriptWarning[];
  rejections: ScriptRejection[];
}

export interface ScriptRun {
  scripts: FormScripts;
  /** the caller's values as scripts see them (script-value.ts), by PDF name */
  values: ReadonlyMap<string, string | string[]>;
  /** the caller's values as sent, by PDF name (what a rejection quotes) */
  sent: ReadonlyMap<string, string>;
  /**
   * Fields whose value needs no script's check: no validate script, and no keystroke script, or one of
   * Acrobat's native checks that render-data already made for the value (a number formatted as a number).
   * Their values are set all at once; the others are committed one by one through their checks.
   */
  unchecked?: ReadonlySet<string>;
  /** how warnings name a field (its schema key) */
  label: (pdfName: string) => string;
}

const MAX_ATTEMPTS = 3;

/**
 * APIs a script may call that a server cannot honour (network, mail, XFA, dialogs with answers): pdf.js
 * makes most of them silent no-ops, which would leave a value silently wrong, so such scripts do not run.
 */
const UNSUPPORTED =
  /\b(xfa|SOAP|Net\s*\.\s*(?:HTTP|SOAP|Discovery)|mailMsg|mailDoc|mailForm|submitForm|launchURL|getURL|importDataObject|importTextData|ADBC|app\s*\.\s*response|execMenuItem)\b/;

function unsupportedApi(code: string): string | undefined {
  return UNSUPPORTED.exec(code)?.[1];
}

const DOC_CALC_OFF = 'formcast:calculate-off';
const DOC_CALCULATE = 'formcast:calculate';
const DOC_VALUES = 'formcast:values';
/**
 * Sets the caller's unchecked values (event.value: PDF name -> value) as a commit would (the field's
 * value setter), without a keystroke, validate or format script to run and a message back per field.
 */
const SET_VALUES =
  'for (var formcastName in event.value) { var formcastField = this.getField(formcastName); if (formcastField) formcastField.value = event.value[formcastName]; }';

interface Session {
  data: unknown;
  steps: SandboxEvent[];
  /** who each step runs for (a field's PDF name, or a document script's label) */
  stepOwner: (string | undefined)[];
  /** sandbox id -> PDF name */
  names: Map<string, string>;
  /** calculated fields, by sandbox id */
  calculated: Set<string>;
  /** the println that marks the start of a calculated field's script, by its text */
  markers: Map<string, string>;
  /** steps that commit a caller's value, by index -> PDF name */
  commits: Map<number, string>;
}

function pdfjsField(f: ScriptField, id: string, value: string | string[], actions: Record<string, string[]>) {
  const base = { id, name: f.name, type: f.kind, value, actions, readonly: f.readOnly, page: 0, rect: [0, 0, 0, 0] };
  if (f.kind === 'checkbox' || f.kind === 'radiobutton') return { ...base, exportValues: f.exportValues?.[0] ?? 'Yes' };
  if (f.kind === 'combobox' || f.kind === 'listbox') {
    return { ...base, items: (f.items ?? []).map(([exportValue, displayValue]) => ({ exportValue, displayValue })) };
  }
  return base;
}

function buildSession(
  run: ScriptRun,
  nonce: string,
  skip: ReadonlySet<string>,
  warnings: ScriptWarning[],
  report: boolean,
): Session {
  const names = new Map<string, string>();
  const ids = new Map<string, string>();
  const calculated = new Set<string>();
  const markers = new Map<string, string>();
  const objects: Record<string, unknown[]> = {};
  run.scripts.fields.forEach((f, i) => {
    const id = `f${i}`;
    names.set(id, f.name);
    ids.set(f.name, id);
    const actions: Record<string, string[]> = {};
    for (const [event, code] of Object.entries(f.actions)) {
      const bad = unsupportedApi(code);
      if (bad && event !== 'Format') {
        if (report) {
          warnings.push({
            field: run.label(f.name),
            code: 'SCRIPT_UNSUPPORTED',
            message: `its ${event.toLowerCase()} script uses ${bad}, which a server cannot run; the script was not run`,
          });
        }
        continue;
      }
      if (skip.has(f.name) && event !== 'Format') continue;
      actions[event] = [code];
    }
    if (actions.Calculate) {
      calculated.add(id);
      // console.println reaches us through pdf.js's send: it tells which field a stuck session was on
      const marker = `${nonce}:${id}`;
      markers.set(`PDF.js Console:: ${marker}`, f.name);
      actions.Calculate.unshift(`console.println(${JSON.stringify(marker)});`);
    }
    // The data holds the template's values (so that it is the same for every render of the form and its
    // context can be made ahead); a caller's text and choices arrive as committed values (steps below).
    // Buttons take theirs here: committing a button's value is an export-value dance pdf.js does not need.
    const button = f.kind === 'checkbox' || f.kind === 'radiobutton';
    const value = (button ? run.values.get(f.name) : undefined) ?? f.value;
    objects[f.name] = [pdfjsField(f, id, value, actions)];
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

  const steps: SandboxEvent[] = [];
  const stepOwner: (string | undefined)[] = [];
  const commits = new Map<number, string>();
  const docActions: Record<string, string[]> = {
    [DOC_CALC_OFF]: ['calculate = false;'],
    [DOC_CALCULATE]: ['calculate = true; calculateNow();'],
    [DOC_VALUES]: [SET_VALUES],
  };
  run.scripts.documentScripts.forEach((s, i) => {
    const label = `document script "${s.name}"`;
    if (skip.has(label)) return;
    const bad = unsupportedApi(s.code);
    if (bad) {
      if (report) {
        warnings.push({
          field: label,
          code: 'SCRIPT_UNSUPPORTED',
          message: `it uses ${bad}, which a server cannot run; not run`,
        });
      }
      return;
    }
    docActions[`formcast:doc:${i}`] = [s.code];
    steps.push({ id: 'doc', name: `formcast:doc:${i}` });
    stepOwner.push(label);
  });
  steps.push({ id: 'doc', name: DOC_CALC_OFF });
  stepOwner.push(undefined);
  const unchecked: Record<string, string | string[]> = {};
  let anyUnchecked = false;
  for (const f of run.scripts.fields) {
    const value = run.values.get(f.name);
    if (value === undefined || f.kind === 'checkbox' || f.kind === 'radiobutton') continue;
    if (!run.unchecked?.has(f.name)) continue;
    unchecked[f.name] = value;
    anyUnchecked = true;
  }
  if (anyUnchecked) {
    steps.push({ id: 'doc', name: DOC_VALUES, value: unchecked });
    stepOwner.push(undefined);
  }
  for (const f of run.scripts.fields) {
    const value = run.values.get(f.name);
    if (value === undefined || f.kind === 'checkbox' || f.kind === 'radiobutton') continue;
    if (run.unchecked?.has(f.name)) continue;
    const id = ids.get(f.name)!;
    const checks = (objects[f.name][0] as { actions: Record<string, string[]> }).actions;
    // A commit runs the field's keystroke and validate scripts (if any) and sets the value.
    if (typeof value === 'string' && value !== '' && (checks.Keystroke || checks.Validate))
      commits.set(steps.length, f.name);
    steps.push({ id, name: 'Keystroke', value, willCommit: true, change: '', changeEx: '', selStart: 0, selEnd: 0 });
    stepOwner.push(f.name);
  }
  if (calculated.size) {
    steps.push({ id: 'doc', name: DOC_CALCULATE });
    stepOwner.push(undefined);
  }
  const calculationOrder = run.scripts.calculationOrder.map((n) => ids.get(n)!).filter((id) => calculated.has(id));
  const data = {
    objects,
    calculationOrder,
    appInfo: { platform: 'UNIX', language: 'en-US' },
    docInfo: { actions: docActions, numPages: 1 },
  };
  return { data, steps, stepOwner, names, calculated, markers, commits };
}

/** First line of a serialized script error, without pdf.js's own prefix. */
function errorText(value: string): string {
  const lines = value.split('\n').filter((l) => !l.startsWith('Error when calculating value for field'));
  return (lines[0] ?? 'the script failed').slice(0, 300);
}

interface Reading {
  results: ScriptResults;
  /** what was running when the session was cut short */
  stuckOn?: string;
}

function readOutcome(run: ScriptRun, session: Session, outcome: SessionOutcome, warnings: ScriptWarning[]): Reading {
  const results: ScriptResults = { computed: new Map(), failed: new Set(), warnings, rejections: [] };
  let current: string | undefined;
  let step = -1;
  let alert: string | undefined;
  const colors = new Map<string, TextColor>();
  const hidden = new Map<string, boolean>();
  const warn = (name: string | undefined, code: string, message: string) => {
    const field = name && !name.startsWith('document script') ? run.label(name) : (name ?? 'form');
    results.warnings.push({ field, code, message });
    if (name && session.calculated.has(idOf(session, name))) results.failed.add(name);
  };
  for (const m of outcome.messages as ThreadMessage[]) {
    if (m.type === 'step') {
      step = m.index;
      current = session.stepOwner[step];
      alert = undefined;
    } else if (m.type === 'alert') {
      alert = m.message;
    } else if (m.type === 'unsupported') {
      warn(current, 'SCRIPT_UNSUPPORTED', `its script needs ${m.what}, which a server cannot give`);
    } else if (m.type === 'send') {
      const d = m.detail;
      if (d.command === 'println') {
        const owner = session.markers.get(String(d.value));
        if (owner) current = owner;
      } else if (d.command === 'error') {
        const text = String(d.value ?? '');
        const id = /^Error when calculating value for field "([^"]+)"/.exec(text)?.[1];
        const name = id ? session.names.get(id) : current;
        const memory = /out of memory|memory budget/i.test(text);
        warn(
          name,
          memory ? 'SCRIPT_BUDGET' : 'SCRIPT_ERROR',
          memory ? 'its script ran out of memory' : `its script failed: ${errorText(text)}`,
        );
      } else if (typeof d.id === 'string') {
        const name = session.names.get(d.id);
        const commit = session.commits.get(step);
        if (name && commit === name && d.value === '' && (d.focus === true || Array.isArray(d.selRange))) {
          results.rejections.push({
            field: name,
            value: run.sent.get(name) ?? '',
            ...(alert ? { message: alert } : {}),
          });
        } else if (name && session.calculated.has(d.id) && commit === undefined) {
          if (Array.isArray(d.textColor)) colors.set(name, isRed(d.textColor) ? 'red' : 'black');
          if (typeof d.hidden === 'boolean') hidden.set(name, d.hidden);
          if ('formattedValue' in d) {
            const value = d.value === null || d.value === undefined ? '' : String(d.value);
            const shown =
              d.formattedValue === null || d.formattedValue === undefined ? value : String(d.formattedValue);
            const color = colors.get(name);
            const hide = hidden.get(name);
            results.computed.set(name, {
              value,
              display: hide ? '' : shown,
              ...(color ? { color } : {}),
              ...(hide !== undefined ? { hidden: hide } : {}),
            });
          }
        }
      }
    }
  }
  if (outcome.ended === 'done') return { results };
  const crash = outcome.messages.findLast((m) => m.type === 'crash');
  const why =
    outcome.ended === 'time'
      ? 'its script ran past the time budget and was stopped'
      : `its script exhausted the script engine (${crash?.type === 'crash' ? crash.message : 'stack or memory'}) and was stopped`;
  warn(current, 'SCRIPT_BUDGET', why);
  return { results, stuckOn: current };
}

/** color.red in any of Acrobat's colour spaces (pdf.js sends ["RGB", 1, 0, 0]). */
function isRed(c: unknown[]): boolean {
  return c[0] === 'RGB' && c[1] === 1 && c[2] === 0 && c[3] === 0;
}

function idOf(session: Session, name: string): string {
  for (const [id, n] of session.names) if (n === name) return id;
  return '';
}

/** Runs the form's scripts for one render. Never throws for anything a script does. */
export async function runScripts(sandbox: ScriptSandbox, run: ScriptRun): Promise<ScriptResults> {
  const skip = new Set<string>();
  const budgetWarnings: ScriptWarning[] = [];
  for (let attempt = 1; ; attempt++) {
    const warnings: ScriptWarning[] = [...budgetWarnings];
    const session = buildSession(run, sandbox.nonce, skip, warnings, true);
    const outcome = await sandbox.run(session.data, session.steps);
    const { results, stuckOn } = readOutcome(run, session, outcome, warnings);
    if (outcome.ended === 'done') {
      // a field stopped in an earlier attempt ran without its script: it did not compute
      for (const name of skip) if (run.scripts.calculationOrder.includes(name)) results.failed.add(name);
      return results;
    }
    budgetWarnings.push(results.warnings.at(-1)!);
    if (!stuckOn || skip.has(stuckOn) || attempt >= MAX_ATTEMPTS) {
      // Cannot tell which script to leave out (or too many misbehave): nothing computed is trusted.
      for (const name of run.scripts.calculationOrder) results.failed.add(name);
      results.computed.clear();
      if (!stuckOn || attempt >= MAX_ATTEMPTS) {
        results.warnings.push({
          field: 'form',
          code: 'SCRIPT_BUDGET',
          message: "the form's scripts were stopped; its calculated fields were not computed",
        });
      }
      return results;
    }
    skip.add(stuckOn);
  }
}
