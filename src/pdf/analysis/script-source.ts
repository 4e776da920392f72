// Reads the JavaScript text of a form's actions: a field's /AA entries (C, F, K, V) and the document-level
// scripts of /Names /JavaScript. Everything is bounded: an action's /Next chain (a dictionary or an array,
// possibly cyclic) is walked with a visited set and a count, the name tree with a depth and a node budget,
// and the text of one action and of the whole form is capped, so a hostile file costs a bounded amount.
import { PDFArray, type PDFDict, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import {
  N,
  asDict,
  deref,
  getArray,
  getDict,
  getNameText,
  inherited,
  resolve,
  streamText,
  textOf,
} from '../pdf-objects.js';

/** Actions of one /Next chain we read (Acrobat writes one; a longer chain is hand-made). */
const MAX_CHAIN = 32;
/** Text of one action chain we read; real AF* calls are a few dozen bytes, custom scripts a few KB. */
const MAX_SCRIPT_CHARS = 256 * 1024;
/** Name-tree nodes and document-level scripts visited. */
const MAX_DOC_NODES = 4096;
const MAX_DOC_SCRIPTS = 512;

/** The budget of script text one analysis reads, shared by every field and the document. */
export interface ScriptBudget {
  chars: number;
}

/** A fresh budget: 16 MiB of script text per form, far above any real form's (Luxembourg's is ~20 KB). */
export const scriptBudget = (): ScriptBudget => ({ chars: 16 * 1024 * 1024 });

/** The text of one JavaScript action (a string or a stream), cut to what is left of the budgets. */
function actionText(ctx: PDFContext, action: PDFDict, max: number): string | undefined {
  if (getNameText(action, 'S') !== 'JavaScript') return undefined;
  const js = resolve(action, 'JS');
  const text = textOf(js) ?? streamText(ctx, js, max);
  return text?.slice(0, max);
}

/**
 * The JavaScript of an action and its /Next chain, joined by new lines, or undefined when there is none.
 * `truncated` is set when a budget cut the text.
 */
export function chainScript(
  ctx: PDFContext,
  first: PDFObject | undefined,
  budget: ScriptBudget,
): { text: string; truncated: boolean } | undefined {
  const parts: string[] = [];
  const seen = new Set<PDFDict>();
  const stack: (PDFObject | undefined)[] = [first];
  let truncated = false;
  let length = 0;
  // steps also bound arrays, which the visited set does not hold (an array may contain itself)
  for (let steps = 0; stack.length > 0 && seen.size < MAX_CHAIN && steps < MAX_CHAIN * 4; steps++) {
    const obj = deref(ctx, stack.pop());
    const arr = obj instanceof PDFArray ? obj : undefined;
    if (arr) {
      for (let i = Math.min(arr.size(), MAX_CHAIN) - 1; i >= 0; i--) stack.push(arr.get(i));
      continue;
    }
    const action = asDict(ctx, obj);
    if (!action || seen.has(action)) continue;
    seen.add(action);
    const room = Math.min(MAX_SCRIPT_CHARS - length, budget.chars);
    if (room <= 0) {
      truncated = true;
      break;
    }
    const text = actionText(ctx, action, room);
    if (text) {
      if (text.length >= room) truncated = true;
      parts.push(text);
      length += text.length;
      budget.chars -= text.length;
    }
    if (action.has(N('Next'))) stack.push(action.get(N('Next')));
  }
  if (stack.length > 0) truncated = true;
  return parts.length > 0 ? { text: parts.join('\n'), truncated } : undefined;
}

export type AaKey = 'C' | 'F' | 'K' | 'V';

/**
 * The field's /AA action for `key`: on the field, on one of its widgets (merged field/widget dictionaries,
 * or producers that put it on the kid), else inherited from an ancestor.
 */
export function fieldAction(ctx: PDFContext, raw: RawField, key: AaKey, maxDepth: number): PDFObject | undefined {
  for (const holder of [raw.dict, ...raw.widgets]) {
    const aa = getDict(holder, 'AA');
    if (aa?.has(N(key))) return aa.get(N(key));
  }
  const aa = asDict(ctx, inherited(raw.dict, 'AA', maxDepth + 1));
  return aa?.get(N(key));
}

/** The document-level scripts (/Names /JavaScript name tree), in tree order: name and text. */
export function documentScripts(
  ctx: PDFContext,
  catalog: PDFDict,
  maxDepth: number,
  budget: ScriptBudget,
): { name: string; text: string }[] {
  const root = getDict(catalog, 'Names');
  const tree = root && getDict(root, 'JavaScript');
  if (!tree) return [];
  const out: { name: string; text: string }[] = [];
  const seen = new Set<PDFDict>();
  const stack: { node: PDFDict; depth: number }[] = [{ node: tree, depth: 0 }];
  while (stack.length > 0 && seen.size < MAX_DOC_NODES && out.length < MAX_DOC_SCRIPTS) {
    const { node, depth } = stack.pop()!;
    if (seen.has(node) || depth > maxDepth) continue;
    seen.add(node);
    const names = getArray(node, 'Names');
    for (let i = 0; names && i + 1 < names.size() && out.length < MAX_DOC_SCRIPTS; i += 2) {
      const script = chainScript(ctx, names.get(i + 1), budget);
      if (script) out.push({ name: textOf(deref(ctx, names.get(i))) ?? '', text: script.text });
    }
    const kids = getArray(node, 'Kids');
    for (let i = (kids?.size() ?? 0) - 1; i >= 0; i--) {
      const kid = asDict(ctx, kids!.get(i));
      if (kid) stack.push({ node: kid, depth: depth + 1 });
    }
  }
  return out;
}
