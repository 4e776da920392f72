// The form's scripts as the analysis reports them: per field, whether it is computed (a JavaScript
// calculate action), the kind of each script and the fields a calculation reads, and the APIs the
// render-time sandbox will not offer; per form, the calculation order and the document-level scripts.
// Static reading only (script-kinds.ts): nothing is run here.
import type { PDFContext, PDFDict } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { asDict, getArray } from '../pdf-objects.js';
import type { AnalysedField, AnalysedScripts, ScriptAction, UnsupportedScript } from '../types.js';
import { calculationOf, declaredFunctions, scriptKindOf, unsupportedApis } from './script-kinds.js';
import { chainScript, documentScripts, fieldAction, type AaKey, type ScriptBudget } from './script-source.js';

type ScriptKeys = Pick<AnalysedField, 'computed' | 'calculation' | 'scripts' | 'unsupportedScripts'>;

const ACTIONS: [AaKey, ScriptAction][] = [
  ['C', 'calculate'],
  ['F', 'format'],
  ['K', 'keystroke'],
  ['V', 'validate'],
];

/** The script keys of one field (an empty object when it has no script). */
export function fieldScripts(ctx: PDFContext, raw: RawField, maxDepth: number, budget: ScriptBudget): ScriptKeys {
  const out: ScriptKeys = {};
  const unsupported: UnsupportedScript[] = [];
  for (const [key, action] of ACTIONS) {
    const script = chainScript(ctx, fieldAction(ctx, raw, key, maxDepth), budget);
    if (!script) continue;
    if (action === 'calculate') {
      // a calculate action that does nothing (empty, comments) computes nothing: the caller's value stands
      if (scriptKindOf(script.text) === undefined) continue;
      out.computed = true;
      out.calculation = calculationOf(script.text);
    } else {
      const kind = scriptKindOf(script.text);
      if (kind) out.scripts = { ...out.scripts, [action]: kind };
    }
    for (const u of unsupportedApis(script.text)) unsupported.push({ action, ...u });
  }
  if (unsupported.length > 0) out.unsupportedScripts = unsupported;
  return out;
}

/** Fields one calculation is reported to read, at most (AFSimple_Calculate lists are a few dozen). */
const MAX_READS = 1000;
/** Names looked at while resolving every calculation of a form: far above a real form, bounds a hostile one. */
const MAX_RESOLVE_STEPS = 1_000_000;

/**
 * Resolves the names a calculation gives to the fully qualified names of terminal fields: a name of a
 * parent field stands for every field under it (as getField(name).getArray() does); names of no field
 * are left out. Built once per form, with a work budget for the whole form (past it, no reads are given).
 */
export function readsResolver(fullNames: readonly string[]): (reads: string[]) => string[] | undefined {
  const exact = new Set(fullNames);
  const under = new Map<string, string[]>();
  for (const full of fullNames) {
    for (let dot = full.indexOf('.'); dot > 0; dot = full.indexOf('.', dot + 1)) {
      const prefix = full.slice(0, dot);
      let list = under.get(prefix);
      if (!list) under.set(prefix, (list = []));
      list.push(full);
    }
  }
  let steps = 0;
  return (reads) => {
    const out = new Set<string>();
    for (const name of reads) {
      const found = exact.has(name) ? [name] : (under.get(name) ?? []);
      steps += found.length + 1;
      if (steps > MAX_RESOLVE_STEPS) return undefined;
      for (const full of found) if (out.size < MAX_READS) out.add(full);
    }
    return [...out];
  };
}

/** The calculation order (/AcroForm /CO, as fully qualified names of the fields found) and the document scripts. */
export function formScripts(
  ctx: PDFContext,
  catalog: PDFDict,
  acroForm: PDFDict,
  raws: readonly RawField[],
  maxDepth: number,
  budget: ScriptBudget,
): AnalysedScripts {
  const nameOf = new Map(raws.map((r) => [r.dict, r.fullName]));
  const co = getArray(acroForm, 'CO');
  const order = new Set<string>();
  for (let i = 0; co && i < co.size() && order.size < raws.length; i++) {
    const dict = asDict(ctx, co.get(i));
    const name = dict && nameOf.get(dict);
    if (name !== undefined) order.add(name);
  }
  return {
    calculationOrder: [...order],
    document: documentScripts(ctx, catalog, maxDepth, budget).map(({ name, text }) => {
      const unsupported = unsupportedApis(text);
      return { name, functions: declaredFunctions(text), ...(unsupported.length > 0 ? { unsupported } : {}) };
    }),
  };
}
