// Groups widget annotations into terminal fields, cycle-safe and bounded. Fields come from the
// /AcroForm /Fields tree first, then from widgets that only pages' /Annots still reference
// (damaged re-saves drop parts of /Fields but keep the widgets on the pages).
import type { PDFContext, PDFDict, PDFObject } from '@cantoo/pdf-lib';
import type { AnalyseLimits } from './limits.js';
import type { PageNode } from './pages.js';
import { N, asDict, getArray, getDict, hasKey, resolve, textOf } from './pdf-objects.js';
import { PdfEngineError } from './types.js';

export interface RawField {
  /** The terminal field dictionary (the widget itself for merged field/widget dictionaries). */
  dict: PDFDict;
  /** Partial names from the root down ("[n]" suffixes kept); joined with "." = fully qualified. */
  partialNames: string[];
  fullName: string;
  widgets: PDFDict[];
  /** 0-based page index of each widget, parallel to widgets (-1 when on no page). */
  widgetPages: number[];
  inAcroFormFields: boolean;
  /** memos of inherited /Ff, /FT and /MaxLen (fill/): no engine step writes them */
  flags?: number;
  type?: PDFObject | null;
  maxLen?: number | null;
}

/** Every field and widget dictionary of these fields (a merged field/widget appears once per field). */
export function formDicts(fields: RawField[]): PDFDict[] {
  return fields.flatMap((f) => [f.dict, ...f.widgets]);
}

type TreeLimits = Pick<AnalyseLimits, 'maxNodes' | 'maxDepth'>;

function isWidget(d: PDFDict): boolean {
  const subtype = resolve(d, 'Subtype');
  // Some producers omit /Subtype on merged field/widget dictionaries; a /Rect gives them away.
  return subtype === N('Widget') || (subtype === undefined && hasKey(d, 'Rect') && !hasKey(d, 'Kids'));
}

/** A widget without /T belongs to its /Parent; with /T (or no parent) it is its own field. */
function fieldOfWidget(w: PDFDict): PDFDict {
  if (hasKey(w, 'T')) return w;
  return getDict(w, 'Parent') ?? w;
}

/**
 * Partial names walking /Parent upwards, as every viewer resolves names and inheritance.
 * `cache` holds decoded /T text per dictionary: siblings share long XFA ancestor chains.
 */
function partialNamesOf(field: PDFDict, maxDepth: number, cache = new Map<PDFDict, string | undefined>()): string[] {
  const names: string[] = [];
  const seen = new Set<PDFDict>();
  for (let cur: PDFDict | undefined = field; cur && !seen.has(cur); cur = getDict(cur, 'Parent')) {
    if (seen.size > maxDepth) {
      throw new PdfEngineError('PDF_LIMIT', `a field's /Parent chain is longer than ${maxDepth}`);
    }
    seen.add(cur);
    let t = cache.get(cur);
    if (!cache.has(cur)) cache.set(cur, (t = textOf(resolve(cur, 'T'))));
    if (t !== undefined && t !== '') names.unshift(t);
  }
  return names;
}

export function collectFields(
  ctx: PDFContext,
  acroForm: PDFDict | undefined,
  pages: PageNode[],
  limits: TreeLimits,
): RawField[] {
  const byDict = new Map<PDFDict, { widgets: PDFDict[]; inTree: boolean }>();
  const owner = new Map<PDFDict, PDFDict>(); // widget -> field, so no widget is counted twice
  const visited = new Set<PDFDict>();
  let budget = limits.maxNodes;
  const spend = () => {
    if (--budget < 0)
      throw new PdfEngineError('PDF_LIMIT', `the form has more than ${limits.maxNodes} field nodes and widgets`);
  };

  const attach = (field: PDFDict, widget: PDFDict | undefined, inTree: boolean) => {
    let entry = byDict.get(field);
    if (!entry) byDict.set(field, (entry = { widgets: [], inTree }));
    entry.inTree ||= inTree;
    if (widget && !owner.has(widget)) {
      owner.set(widget, field);
      entry.widgets.push(widget);
    }
  };

  // Depth-first in /Kids order with an explicit stack (no recursion on untrusted depth).
  const stack: { obj: PDFObject | undefined; depth: number }[] = [];
  const fields = acroForm ? getArray(acroForm, 'Fields') : undefined;
  for (let i = (fields?.size() ?? 0) - 1; i >= 0; i--) stack.push({ obj: fields!.get(i), depth: 0 });
  while (stack.length > 0) {
    const { obj, depth } = stack.pop()!;
    const node = asDict(ctx, obj);
    if (!node || visited.has(node)) continue;
    visited.add(node);
    spend();
    if (depth > limits.maxDepth) {
      throw new PdfEngineError('PDF_LIMIT', `the field tree is nested deeper than ${limits.maxDepth} levels`);
    }
    const kids = getArray(node, 'Kids');
    if (!kids || kids.size() === 0) {
      if (isWidget(node)) attach(fieldOfWidget(node), node, true);
      continue; // a field without widgets has nothing to fill or draw
    }
    const deeper: PDFObject[] = [];
    for (let i = 0; i < kids.size(); i++) {
      const kid = asDict(ctx, kids.get(i));
      if (!kid || visited.has(kid)) continue;
      if (hasKey(kid, 'T') || hasKey(kid, 'Kids')) deeper.push(kids.get(i));
      else if (isWidget(kid)) {
        visited.add(kid);
        spend();
        attach(node, kid, true);
      }
    }
    for (let i = deeper.length - 1; i >= 0; i--) stack.push({ obj: deeper[i], depth: depth + 1 });
  }

  // Widget -> first page listing it in /Annots; orphans (not reached above) become fields too.
  const pageOf = new Map<PDFDict, number>();
  pages.forEach((page, index) => {
    const annots = getArray(page.dict, 'Annots');
    for (let i = 0; i < (annots?.size() ?? 0); i++) {
      const annot = asDict(ctx, annots!.get(i));
      if (!annot || pageOf.has(annot) || !isWidget(annot)) continue;
      pageOf.set(annot, index);
      if (!owner.has(annot)) {
        spend();
        attach(fieldOfWidget(annot), annot, visited.has(annot));
      }
    }
  });
  const pageIndexByDict = new Map<PDFDict, number>(pages.map((p, i) => [p.dict, i]));

  const out: RawField[] = [];
  const nameCache = new Map<PDFDict, string | undefined>();
  for (const [dict, entry] of byDict) {
    if (entry.widgets.length === 0) continue;
    const partialNames = partialNamesOf(dict, limits.maxDepth, nameCache);
    out.push({
      dict,
      partialNames,
      fullName: partialNames.join('.'),
      widgets: entry.widgets,
      // Fall back to the widget's /P when no page lists it in /Annots.
      widgetPages: entry.widgets.map((w) => pageOf.get(w) ?? pageIndexByDict.get(getDict(w, 'P')!) ?? -1),
      inAcroFormFields: entry.inTree,
    });
  }
  return out;
}
