// The render step that runs the form's scripts (scripts/run-scripts.ts) once the caller's values are
// written, and writes what they computed: the value into /V, the format script's text drawn. A calculated
// field whose script failed keeps the caller's value, or is emptied (a stale total saved in the template
// would be silently wrong).
import type { FormScripts } from '../scripts/form-model.js';
import { runScripts } from '../scripts/run-scripts.js';
import type { ScriptSandbox } from '../scripts/sandbox.js';
import { scriptValue } from '../scripts/script-value.js';
import type { RawField } from '../field-tree.js';
import type { AnalysedField, FieldFormat, FillRequest, ScriptReport } from '../types.js';
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
 * Acrobat's own number, percent, date and time keystroke checks, called alone: the render data's
 * validation already refuses what they refuse (a number field takes numbers, a date field dates), so a
 * form whose only scripts are these does not pay a script context (8-12 ms) on every render. Any other
 * check (a range, a custom script) runs in the sandbox; so does every check once a form computes.
 */
const NATIVE_CHECK =
  /^\s*(?:AFNumber_Keystroke|AFPercent_Keystroke|AFDate_KeystrokeEx|AFDate_Keystroke|AFTime_Keystroke)\s*\([^;{}]*\)\s*;?\s*$/;

function needsSandbox(code: string | undefined): boolean {
  return code !== undefined && code.trim() !== '' && !NATIVE_CHECK.test(code);
}

/** The format kind whose values render-data checks as each native keystroke call would. */
const NATIVE_KIND: Record<string, FieldFormat['kind']> = {
  AFNumber: 'number',
  AFPercent: 'percent',
  AFDate: 'date',
  AFTime: 'time',
};

/**
 * The field's keystroke script is one of Acrobat's native checks and render-data formatted the value for
 * that very kind: inside a session the value can be set as it is, without running the check again.
 */
function checkedByRenderData(code: string | undefined, format: FieldFormat | undefined): boolean {
  if (code === undefined || code.trim() === '') return true;
  if (!NATIVE_CHECK.test(code)) return false;
  return NATIVE_KIND[code.trim().split('_')[0]] === format?.kind;
}

export async function applyScripts(
  fc: FillContext,
  index: { byName: ReadonlyMap<string, RawField>; infoByName: ReadonlyMap<string, AnalysedField> },
  request: FillRequest,
  scripts: FormScripts,
  sandbox: ScriptSandbox,
): Promise<ScriptReport> {
  const values = new Map<string, string | string[]>();
  const sent = new Map<string, string>();
  const unchecked = new Set<string>();
  for (const f of scripts.fields) {
    const v = request.values[f.name];
    if (!v) continue;
    const format = index.infoByName.get(f.name)?.detail.format;
    const seen = scriptValue(v, f, format);
    if (seen !== undefined) values.set(f.name, seen);
    if (!f.actions.Validate && checkedByRenderData(f.actions.Keystroke, format)) unchecked.add(f.name);
    if (v.kind === 'text') sent.set(f.name, v.text);
    else if (v.kind === 'choice') sent.set(f.name, v.value);
  }
  // A render that sets nothing changes nothing (its output is the template as prepared), and a session
  // costs a script context: skip it then, and when nothing would compute or be checked.
  const checked = scripts.fields.some(
    (f) => values.get(f.name) && (needsSandbox(f.actions.Keystroke) || needsSandbox(f.actions.Validate)),
  );
  const nothingSet = Object.keys(request.values).length === 0;
  if (nothingSet || (!scripts.calculationOrder.length && !checked)) return { scriptWarnings: [], scriptRejections: [] };
  const label = (name: string) => {
    const field = index.byName.get(name);
    return field ? fieldLabel(fc, field) : name;
  };
  const results = await runScripts(sandbox, { scripts, values, sent, unchecked, label });

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
