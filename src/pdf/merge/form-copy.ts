// The form part of one copy in a combined file: its fields renamed so no two copies share a name
// (and so a value), the document-wide defaults its fields inherit pushed down onto them, and its
// default resources (/DR) ready to merge with the other copies'.
//
// Naming: copy n (its 1-based position in the batch) suffixes "#n" to the first named node on every
// path from a root field down, which renames the whole subtree: "name" becomes "name#3",
// "address.city" becomes "address#3.city". "." stays the hierarchy separator readers expect.
import { PDFDict, PDFHexString, type PDFName, PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { collectFields, formDicts } from '../field-tree.js';
import { DEFAULT_LIMITS } from '../limits.js';
import type { PageNode } from '../pages.js';
import { N, asDict, getArray, getDict, hasKey, hexTextString, resolve, textOf } from '../pdf-objects.js';

/** Inheritable text attributes the /AcroForm dictionary gives every field that does not set its own. */
const FORM_DEFAULTS = ['DA', 'Q'] as const;

export interface FormCopy {
  /** the root fields of this copy (the combined /Fields lists them) */
  roots: PDFRef[];
  /** every field and widget dictionary, roots and intermediate nodes included (their /DA may need renaming) */
  nodes: PDFDict[];
  /** /DR of this copy: category (Font, XObject, ...) -> resource name -> reference */
  resources: Map<PDFName, Map<PDFName, PDFRef>>;
  /** the copy's document-wide /DA, the combined file's default when it is the first */
  defaultDA?: PDFObject;
}

/** The fields of one copy, renamed for copy `n` and made independent of their /AcroForm. */
export function prepareFormCopy(
  ctx: PDFContext,
  catalog: PDFDict,
  pages: PageNode[],
  n: number,
  refOf: (dict: PDFDict) => PDFRef,
): FormCopy | undefined {
  const acroForm = getDict(catalog, 'AcroForm');
  const fields = collectFields(ctx, acroForm, pages, DEFAULT_LIMITS);
  if (fields.length === 0) return undefined;

  const roots = new Set<PDFDict>();
  const nodes = new Set<PDFDict>(formDicts(fields));
  for (const field of fields) {
    // Up the /Parent chain to the root field (bounded; a loop ends at the last node not seen twice).
    let top = field.dict;
    const chain = new Set([top]);
    for (
      let up = getDict(top, 'Parent');
      up && !chain.has(up) && chain.size <= DEFAULT_LIMITS.maxDepth;
      up = getDict(up, 'Parent')
    ) {
      chain.add(up);
      nodes.add(up);
      top = up;
    }
    roots.add(top);
  }

  for (const root of roots) {
    for (const key of FORM_DEFAULTS) {
      const value = acroForm?.get(N(key));
      if (value !== undefined && !root.has(N(key))) root.set(N(key), value);
    }
    suffixNames(ctx, root, `#${n}`);
  }

  return {
    roots: [...roots].map(refOf),
    nodes: [...nodes],
    resources: acroForm ? resourcesOf(ctx, acroForm, refOf) : new Map(),
    defaultDA: acroForm?.get(N('DA')),
  };
}

/** Suffixes the first named node of every path from `node` down; a nameless terminal gets the suffix alone. */
function suffixNames(ctx: PDFContext, node: PDFDict, suffix: string): void {
  const seen = new Set<PDFDict>();
  const stack: { dict: PDFDict; depth: number }[] = [{ dict: node, depth: 0 }];
  while (stack.length > 0) {
    const { dict, depth } = stack.pop()!;
    if (seen.has(dict) || depth > DEFAULT_LIMITS.maxDepth) continue;
    seen.add(dict);
    const name = textOf(resolve(dict, 'T'));
    if (name !== undefined && name !== '') {
      dict.set(N('T'), textString(`${name}${suffix}`));
      continue;
    }
    const kids = getArray(dict, 'Kids');
    // Kids without /T are this field's widgets: the field itself is the nameless terminal.
    const fieldKids: PDFDict[] = [];
    for (let i = 0; i < (kids?.size() ?? 0); i++) {
      const kid = asDict(ctx, kids!.get(i));
      if (kid && (hasKey(kid, 'T') || hasKey(kid, 'Kids'))) fieldKids.push(kid);
    }
    if (fieldKids.length === 0) dict.set(N('T'), textString(suffix));
    else for (const kid of fieldKids) stack.push({ dict: kid, depth: depth + 1 });
  }
}

/** A text string as a hex string: PDFDocEncoding bytes when ASCII (every tool reads those), else UTF-16BE. */
function textString(text: string): PDFHexString {
  return /^[\x20-\x7e]*$/.test(text)
    ? PDFHexString.of(Buffer.from(text, 'latin1').toString('hex'))
    : hexTextString(text);
}

/** The named resources of /DR, each as an indirect reference (direct ones are registered). */
function resourcesOf(
  ctx: PDFContext,
  acroForm: PDFDict,
  refOf: (dict: PDFDict) => PDFRef,
): Map<PDFName, Map<PDFName, PDFRef>> {
  const out = new Map<PDFName, Map<PDFName, PDFRef>>();
  const dr = getDict(acroForm, 'DR');
  if (!dr) return out;
  for (const [category, value] of dr.entries()) {
    const entries = asDict(ctx, value);
    if (!entries) continue;
    const named = new Map<PDFName, PDFRef>();
    for (const [name, resource] of entries.entries()) {
      if (resource instanceof PDFRef) named.set(name, resource);
      else if (resource instanceof PDFDict) named.set(name, refOf(resource));
    }
    out.set(category, named);
  }
  return out;
}
