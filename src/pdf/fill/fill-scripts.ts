// The render step that runs the form's scripts (scripts/run-scripts.ts) and writes what they computed:
// the value into /V, the format script's text drawn. The session starts before the caller's values are
// written (it reads only the request and the form, and runs in the sandbox's thread meanwhile); its
// results are written after them. A calculated field whose script failed keeps the caller's value, or is
// emptied (a stale total saved in the template would be silently wrong).
import type { SessionPlan } from '../scripts/session-plan.js';
import { runScripts, type ScriptResults } from '../scripts/run-scripts.js';
import type { ScriptSandbox } from '../scripts/sandbox.js';
import { scriptValue } from '../scripts/script-value.js';
import { specialAccepts } from '../scripts/special-check.js';
import type { RawField } from '../field-tree.js';
import type { AnalysedField, FillRequest, ScriptReport } from '../types.js';
import { fieldLabel, type FillContext } from './fill-context.js';
import { fillText } from './field-text.js';
import { N, getNumber } from '../pdf-objects.js';

/** Annotation flag Hidden (PDF 32000-1, table 165). */
const HIDDEN = 1 << 1;

function setHidden(fc: FillContext, field: RawField, hidden: boolean): void {
  for (const w of field.widgets) {
    const flags = getNumber(w, 'F') ?? 0;
    const next = hidden ? flags | HIDDEN : flags & ~HIDDEN;
    if (next !== flags) w.set(N('F'), fc.ctx.obj(next));
  }
}

/**
 * Whether the caller's value `seen` of a field goes through a check only a session runs: a check other than
 * Acrobat's native ones, or an AFSpecial check that refuses it (one that accepts it commits it unchanged).
 */
function needsSessionCheck(plan: SessionPlan, name: string, seen: string | string[] | undefined): boolean {
  if (!seen) return false;
  const special = plan.specialChecks.get(name);
  if (special === undefined) return plan.needsSession.has(name);
  return typeof seen === 'string' && !specialAccepts(seen, special);
}

/** Whether any caller's value needs a session's check (startScripts's loop, over the checked fields alone). */
function checksNeedSession(
  plan: SessionPlan,
  index: { infoByName: ReadonlyMap<string, AnalysedField> },
  request: FillRequest,
): boolean {
  for (const f of plan.scripts.fields) {
    if (!plan.specialChecks.has(f.name) && !plan.needsSession.has(f.name)) continue;
    const v = request.values[f.name];
    if (v && needsSessionCheck(plan, f.name, scriptValue(v, f, index.infoByName.get(f.name)?.detail.format)))
      return true;
  }
  return false;
}

/**
 * Starts the render's script session, if it needs one (undefined: nothing to run). It reads only the
 * request and the form, so it runs in the sandbox's thread while the caller's values are being written;
 * writeScriptResults writes what it computed, after them.
 */
export function startScripts(
  fc: FillContext,
  index: { byName: ReadonlyMap<string, RawField>; infoByName: ReadonlyMap<string, AnalysedField> },
  request: FillRequest,
  plan: SessionPlan,
  sandbox: ScriptSandbox,
): Promise<ScriptResults> | undefined {
  const { scripts } = plan;
  // A form that computes nothing opens a session only for a value one of its checks must see: decided
  // over those fields alone (B107: 600 fields, 69 checked, none needing a session for valid values).
  if (!scripts.calculationOrder.length && !checksNeedSession(plan, index, request)) return undefined;
  const values = new Map<string, string | string[]>();
  const sent = new Map<string, string>();
  const unchecked = new Set<string>();
  let checked = false;
  for (const f of scripts.fields) {
    const v = request.values[f.name];
    if (!v) continue;
    const format = index.infoByName.get(f.name)?.detail.format;
    const seen = scriptValue(v, f, format);
    if (seen !== undefined) values.set(f.name, seen);
    // a value the render data already checked as the field's own keystroke check would
    const direct = plan.setDirectly.get(f.name);
    if (direct === 'any' || (direct !== undefined && direct === format?.kind)) unchecked.add(f.name);
    if (needsSessionCheck(plan, f.name, seen)) checked = true;
    // AFSpecial_Keystroke(Ex) alone, accepting the value: committed unchanged, so set directly
    else if (plan.specialChecks.has(f.name) && typeof seen === 'string') unchecked.add(f.name);
    if (v.kind === 'text') sent.set(f.name, v.text);
    else if (v.kind === 'choice') sent.set(f.name, v.value);
  }
  // A render that sets nothing changes nothing (its output is the template as prepared), and a session
  // costs a script context: skip it then, and when nothing would compute or be checked.
  const nothingSet = Object.keys(request.values).length === 0;
  if (nothingSet || (!scripts.calculationOrder.length && !checked)) return undefined;
  const label = (name: string) => {
    const field = index.byName.get(name);
    return field ? fieldLabel(fc, field) : name;
  };
  return runScripts(sandbox, { plan, values, sent, unchecked, label });
}

/** Writes what the scripts computed (after the caller's values) and reports their warnings. */
export function writeScriptResults(
  fc: FillContext,
  index: { byName: ReadonlyMap<string, RawField> },
  request: FillRequest,
  plan: SessionPlan,
  results: ScriptResults | undefined,
): ScriptReport {
  if (!results) return { scriptWarnings: [], scriptRejections: [] };
  const { scripts } = plan;
  // Calculated text fields only: a script computing a check box or a list is rare enough to leave alone.
  const text = new Set(scripts.fields.filter((f) => f.kind === 'text').map((f) => f.name));
  for (const name of scripts.calculationOrder) {
    const field = index.byName.get(name);
    if (!field || !text.has(name)) continue;
    const computed = results.computed.get(name);
    // A script that failed or asked for something we cannot give may have produced a value anyway: not trusted.
    if (results.failed.has(name)) {
      if (!request.values[name]) fillText(fc, field, null);
    } else if (computed) {
      fillText(fc, field, computed.value || null, computed.color, computed.display);
      if (computed.hidden !== undefined) setHidden(fc, field, computed.hidden);
    }
  }
  // Each script warning is also one of the render's warnings (the list callers read), prefixed by its code.
  for (const w of results.warnings) fc.warnings.push(`${w.code}: field "${w.field}": ${w.message}`);
  return { scriptWarnings: results.warnings, scriptRejections: results.rejections };
}
