// One render's scripts, as Acrobat runs them after a person has typed the values: the document-level
// scripts (the functions the others call), each caller value through its field's keystroke and validate
// scripts (a refusal is reported, the value stays), then the calculation order once, each calculated
// field's result through its format script. Everything runs in the sandbox (sandbox.ts); this module
// builds the session on the form's plan (session-plan.ts) and reads what came back.
//
// A field whose script runs out of time, memory or stack is reported (SCRIPT_BUDGET) and the session is
// run again without that script, up to MAX_ATTEMPTS times, so one hostile script costs only its field.
// Which calculated field was running is only known for sure in a careful session (sandbox-setup.ts),
// which costs a call out of the sandbox per calculated field: sessions start fast, and one stopped
// during the calculations is run again carefully to find the field.
import type { ScriptRejection, ScriptWarning, TextColor } from '../types.js';
import type { SandboxEvent, ScriptSandbox, SessionContext, SessionOutcome, ThreadMessage } from './sandbox.js';
import { CALCULATING_COMMAND, CAREFUL_ACTION } from './sandbox-setup.js';
import {
  DOC_CALC_OFF,
  DOC_CALCULATE,
  DOC_VALUES,
  planSessions,
  sessionContext,
  type SessionPlan,
} from './session-plan.js';

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
  /** the form's plan, made once per template (planSessions) */
  plan: SessionPlan;
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

const MAX_ATTEMPTS = 4;

interface Session {
  plan: SessionPlan;
  /** markers sent as each calculated field starts (a stopped session names its field) */
  careful: boolean;
  context: SessionContext;
  steps: SandboxEvent[];
  /** who each step runs for (a field's PDF name, or a document script's label) */
  stepOwner: (string | undefined)[];
  /** steps that commit a caller's value, by index -> PDF name */
  commits: Map<number, string>;
}

function buildSession(run: ScriptRun, plan: SessionPlan, warnings: ScriptWarning[], careful: boolean): Session {
  for (const u of plan.unsupported) {
    if (u.field !== undefined) {
      warnings.push({
        field: run.label(u.field),
        code: 'SCRIPT_UNSUPPORTED',
        message: `its ${u.what.toLowerCase()} script uses ${u.api}, which a server cannot run; the script was not run`,
      });
    } else {
      warnings.push({
        field: u.what,
        code: 'SCRIPT_UNSUPPORTED',
        message: `it uses ${u.api}, which a server cannot run; not run`,
      });
    }
  }
  const steps: SandboxEvent[] = [];
  const stepOwner: (string | undefined)[] = [];
  const commits = new Map<number, string>();
  if (careful) {
    steps.push({ id: 'doc', name: CAREFUL_ACTION });
    stepOwner.push(undefined);
  }
  for (const d of plan.docSteps) {
    steps.push({ id: 'doc', name: d.name });
    stepOwner.push(d.label);
  }
  steps.push({ id: 'doc', name: DOC_CALC_OFF });
  stepOwner.push(undefined);
  const unchecked: Record<string, string | string[]> = {};
  let anyUnchecked = false;
  for (const f of plan.scripts.fields) {
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
  for (const f of plan.scripts.fields) {
    const value = run.values.get(f.name);
    if (value === undefined || f.kind === 'checkbox' || f.kind === 'radiobutton') continue;
    if (run.unchecked?.has(f.name)) continue;
    // A commit runs the field's keystroke and validate scripts (if any) and sets the value.
    if (typeof value === 'string' && value !== '' && plan.checked.has(f.name)) commits.set(steps.length, f.name);
    steps.push({
      id: plan.ids.get(f.name)!,
      name: 'Keystroke',
      value,
      willCommit: true,
      change: '',
      changeEx: '',
      selStart: 0,
      selEnd: 0,
    });
    stepOwner.push(f.name);
  }
  if (plan.calculated.size) {
    steps.push({ id: 'doc', name: DOC_CALCULATE });
    stepOwner.push(undefined);
  }
  const states = new Map<string, string | string[]>();
  for (const f of plan.buttons) {
    const value = run.values.get(f.name);
    if (value !== undefined) states.set(f.name, value);
  }
  return { plan, careful, context: sessionContext(plan, states), steps, stepOwner, commits };
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
  /** a fast session was cut short during the calculations: which field was running is not known */
  again?: boolean;
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
    if (name && session.plan.calculated.has(session.plan.ids.get(name) ?? '')) results.failed.add(name);
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
      if (d.command === CALCULATING_COMMAND) {
        // the sandbox names each calculated field before its script runs (sandbox-setup.ts)
        const owner = session.plan.names.get(String(d.id));
        if (owner) current = owner;
      } else if (d.command === 'error') {
        const text = String(d.value ?? '');
        const id = /^Error when calculating value for field "([^"]+)"/.exec(text)?.[1];
        const name = id ? session.plan.names.get(id) : current;
        const memory = /out of memory|memory budget/i.test(text);
        warn(
          name,
          memory ? 'SCRIPT_BUDGET' : 'SCRIPT_ERROR',
          memory ? 'its script ran out of memory' : `its script failed: ${errorText(text)}`,
        );
      } else if (typeof d.id === 'string') {
        const name = session.plan.names.get(d.id);
        const commit = session.commits.get(step);
        if (name && commit === name && d.value === '' && (d.focus === true || Array.isArray(d.selRange))) {
          results.rejections.push({
            field: name,
            value: run.sent.get(name) ?? '',
            ...(alert ? { message: alert } : {}),
          });
        } else if (name && session.plan.calculated.has(d.id) && commit === undefined) {
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
  if (!session.careful && session.steps[step]?.name === DOC_CALCULATE) return { results, again: true };
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

/** Runs the form's scripts for one render. Never throws for anything a script does. */
export async function runScripts(sandbox: ScriptSandbox, run: ScriptRun): Promise<ScriptResults> {
  const skip = new Set<string>();
  const budgetWarnings: ScriptWarning[] = [];
  let careful = false;
  for (let attempt = 1; ; attempt++) {
    const warnings: ScriptWarning[] = [...budgetWarnings];
    // a retry leaves out the scripts stopped before: its own plan (and its own pristine context)
    const plan = skip.size ? planSessions(run.plan.scripts, skip) : run.plan;
    const session = buildSession(run, plan, warnings, careful);
    const outcome = await sandbox.run(session.context, session.steps);
    const { results, stuckOn, again } = readOutcome(run, session, outcome, warnings);
    if (outcome.ended === 'done') {
      // a field stopped in an earlier attempt ran without its script: it did not compute
      for (const name of skip) if (run.plan.scripts.calculationOrder.includes(name)) results.failed.add(name);
      return results;
    }
    // once a session was stopped, the next ones are careful (a form with one hostile script may have two)
    careful = true;
    if (again && attempt < MAX_ATTEMPTS) continue;
    if (!again) budgetWarnings.push(results.warnings.at(-1)!);
    if (!stuckOn || skip.has(stuckOn) || attempt >= MAX_ATTEMPTS) {
      // Cannot tell which script to leave out (or too many misbehave): nothing computed is trusted.
      for (const name of run.plan.scripts.calculationOrder) results.failed.add(name);
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
