// Combines finished renders into one PDF: every page of every item, in order. Flattened items bring
// pages only; an interactive item brings its fields too, renamed "name#n" for item n (form-copy.ts),
// so every copy keeps a value of its own in one /AcroForm. Appearance streams are kept and
// /NeedAppearances is false: viewers draw what the engine drew. The default resources (/DR) of every
// item are merged; a name two items use for different resources is renamed in the later item's /DA
// strings. Page trees are rebuilt: one node per item under a new root, inherited page attributes
// copied onto each page. Outlines, structure trees, named destinations and document metadata of the
// items are left out (an item is one form, not a book), and so are the items' signatures
// (signed-fields.ts): each signs its own file, not this one.
import {
  PDFContext,
  type PDFDict,
  PDFHexString,
  type PDFName,
  PDFRef,
  PDFString,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { DEFAULT_LIMITS } from '../limits.js';
import { loadPdf } from '../load.js';
import { collectPages, type PageNode } from '../pages.js';
import { N, asDict, getDict, nameOfBytes, resolve, textOf } from '../pdf-objects.js';
import { PdfEngineError } from '../types.js';
import { prepareFormCopy, type FormCopy } from './form-copy.js';
import { CombinedWriter } from './object-copy.js';
import { dropSignedFields } from './signed-fields.js';

export interface CombineItem {
  bytes: Uint8Array;
  /**
   * The render was flattened, so its pages are all it brings. Fields are read from the file either
   * way: a render that still has fields is merged as a form (renamed), never left to collide.
   */
  flattened: boolean;
}

/** Page attributes a page may inherit from its page-tree ancestors (PDF 32000-1, 7.7.3.4). */
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;

/** One PDF with the items' pages in order and every interactive item's fields, renamed per item. */
export async function combineRenders(items: Iterable<CombineItem> | AsyncIterable<CombineItem>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await combineInto(items, (chunk) => parts.push(chunk));
  const bytes = Buffer.concat(parts);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * combineRenders for any number of items: they are taken one at a time (an async iterable may read
 * each from a file only when its turn comes) and the output goes to `write` as it is made, so memory
 * holds one parsed item and the bookkeeping of the combined file, never every item or the whole
 * output. Answers the bytes written.
 */
export async function combineInto(
  items: Iterable<CombineItem> | AsyncIterable<CombineItem>,
  write: (chunk: Uint8Array) => void,
): Promise<number> {
  const out = new CombinedWriter(write);
  const catalogNum = out.reserve();
  const rootNum = out.reserve();
  const own = PDFContext.create(); // builds our own objects; their references are combined-file numbers
  const ref = (num: number) => PDFRef.of(num);
  const itemNodes: { num: number; pages: number[] }[] = [];
  const fields: number[] = [];
  const resources = new ResourceMerge();
  let defaultDA: PDFObject | undefined;

  let index = -1;
  for await (const item of items) {
    index++;
    const n = index + 1;
    // Each item is parsed and copied in one go (~10-60 ms); in between, other work on this thread runs.
    if (index > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const { context: ctx, catalog } = await loadItem(item.bytes, n);
    const pages = collectPages(ctx, catalog, DEFAULT_LIMITS);
    dropSignedFields(ctx, catalog, pages);
    const refOf = refFinder(ctx);
    const nodeNum = out.reserve();
    const parent = ctx.nextRef(); // a placeholder for this item's page-tree node, never looked up
    const fixed = new Map<PDFRef, number>([[parent, nodeNum]]);
    const catalogRef = refOf(catalog);
    fixed.set(catalogRef, 0); // nothing of an item's catalog is copied
    const pageRefs = pages.map((page) => adoptPage(page, parent, refOf));

    // A flattened render has no fields left; a file that still has some is merged as a form anyway.
    const form = prepareFormCopy(ctx, catalog, pages, n, refOf);
    const roots = [...pageRefs, ...(form?.roots ?? []), ...resourceRefs(form)];
    // Appearance streams stay each copy's own: a viewer that redraws a field after an edit may rewrite
    // its stream in place, which must not change the same-looking field of another copy.
    const plan = out.plan(ctx, roots, fixed, form ? appearanceRefs(ctx, form.nodes) : []);
    if (form) {
      const renames = resources.add(form, plan.numbers, n);
      if (renames.size > 0) renameFontsInDA(form.nodes, renames);
      for (const root of form.roots) fields.push(plan.numbers.get(root)!);
      defaultDA ??= form.defaultDA;
    }
    out.write(plan);
    itemNodes.push({ num: nodeNum, pages: pageRefs.map((r) => plan.numbers.get(r)!) });
  }
  if (index < 0) throw new PdfEngineError('RENDER_FAILED', 'there is nothing to combine');

  for (const node of itemNodes) {
    const dict = own.obj({
      Type: 'Pages',
      Parent: ref(rootNum),
      Kids: node.pages.map(ref),
      Count: node.pages.length,
    });
    out.writeOwn(node.num, dict);
  }
  const pageCount = itemNodes.reduce((sum, node) => sum + node.pages.length, 0);
  out.writeOwn(rootNum, own.obj({ Type: 'Pages', Kids: itemNodes.map((node) => ref(node.num)), Count: pageCount }));

  const catalog = own.obj({ Type: 'Catalog', Pages: ref(rootNum) });
  if (fields.length > 0) {
    const acroFormNum = out.reserve();
    const acroForm = own.obj({ Fields: fields.map(ref), NeedAppearances: false });
    acroForm.set(N('DR'), resources.toDict(own));
    const da = defaultDA instanceof PDFString || defaultDA instanceof PDFHexString ? defaultDA : undefined;
    if (da) acroForm.set(N('DA'), da);
    out.writeOwn(acroFormNum, acroForm);
    catalog.set(N('AcroForm'), ref(acroFormNum));
  }
  out.writeOwn(catalogNum, catalog);
  return out.finish(catalogNum);
}

async function loadItem(bytes: Uint8Array, n: number) {
  try {
    return await loadPdf(bytes);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new PdfEngineError('RENDER_FAILED', `item ${n} cannot be combined: ${message}`);
  }
}

/** The indirect reference of a dictionary, registering direct ones (a page or field written inline). */
function refFinder(ctx: PDFContext): (dict: PDFDict) => PDFRef {
  let index: Map<PDFObject, PDFRef> | undefined;
  return (dict) => {
    index ??= new Map(ctx.enumerateIndirectObjects().map(([r, obj]) => [obj, r]));
    let r = index.get(dict);
    if (!r) index.set(dict, (r = ctx.register(dict)));
    return r;
  };
}

/** Makes a page stand alone under its new parent: inherited attributes copied onto it. */
function adoptPage(page: PageNode, parent: PDFRef, refOf: (d: PDFDict) => PDFRef): PDFRef {
  const seen = new Set<PDFDict>([page.dict]);
  for (let up = getDict(page.dict, 'Parent'); up && !seen.has(up); up = getDict(up, 'Parent')) {
    seen.add(up);
    for (const key of INHERITED) {
      const value = up.get(N(key));
      if (value !== undefined && !page.dict.has(N(key))) page.dict.set(N(key), value);
    }
  }
  page.dict.set(N('Parent'), parent);
  return page.ref ?? refOf(page.dict);
}

/** The appearance streams of these widgets (/AP /N, /D, /R, directly or per state) and their /AP dictionaries. */
function appearanceRefs(ctx: PDFContext, widgets: PDFDict[]): PDFRef[] {
  const refs: PDFRef[] = [];
  const add = (obj: PDFObject | undefined) => {
    if (obj instanceof PDFRef) refs.push(obj);
  };
  for (const widget of widgets) {
    const raw = widget.get(N('AP'));
    add(raw);
    const ap = getDict(widget, 'AP');
    if (!ap) continue;
    for (const key of ['N', 'D', 'R']) {
      const entry = ap.get(N(key));
      add(entry);
      const states = asDict(ctx, entry);
      if (states) for (const value of states.values()) add(value);
    }
  }
  return refs;
}

function resourceRefs(form: FormCopy | undefined): PDFRef[] {
  if (!form) return [];
  return [...form.resources.values()].flatMap((named) => [...named.values()]);
}

/**
 * The combined /DR. The first item to use a name keeps it; a later item using it for another
 * resource gets "name_n" (n its position) and its /DA strings are rewritten to match. Items of one
 * template share identical fonts (object-copy.ts), so they share names too.
 */
class ResourceMerge {
  private readonly byCategory = new Map<PDFName, Map<PDFName, number>>();

  /** Adds an item's resources; returns its font renames (old name -> new name). */
  add(form: FormCopy, numbers: Map<PDFRef, number>, n: number): Map<PDFName, PDFName> {
    const renames = new Map<PDFName, PDFName>();
    for (const [category, named] of form.resources) {
      let merged = this.byCategory.get(category);
      if (!merged) this.byCategory.set(category, (merged = new Map()));
      for (const [name, r] of named) {
        const num = numbers.get(r);
        if (!num) continue;
        const taken = merged.get(name);
        if (taken === undefined || taken === num) {
          merged.set(name, num);
          continue;
        }
        let fresh = nameOfBytes(`${name.decodeText()}_${n}`);
        for (let k = 2; merged.has(fresh) && merged.get(fresh) !== num; k++)
          fresh = nameOfBytes(`${name.decodeText()}_${n}_${k}`);
        merged.set(fresh, num);
        if (category === N('Font')) renames.set(name, fresh);
      }
    }
    return renames;
  }

  toDict(own: PDFContext): PDFDict {
    const dr = own.obj({});
    for (const [category, merged] of this.byCategory) {
      const entries = own.obj({});
      for (const [name, num] of merged) entries.set(name, PDFRef.of(num));
      dr.set(category, entries);
    }
    return dr;
  }
}

/** Rewrites the font operand of `Tf` in every /DA of these field and widget dictionaries. */
function renameFontsInDA(nodes: PDFDict[], renames: Map<PDFName, PDFName>): void {
  const byText = new Map([...renames].map(([from, to]) => [from.asString(), to.asString()]));
  for (const node of nodes) {
    const da = textOf(resolve(node, 'DA'));
    if (da === undefined) continue;
    const next = da.replace(/(\/[^\s/[\]()<>{}%]+)(\s+[-+\d.]+\s+Tf)/g, (m, font: string, rest: string) => {
      const to = byText.get(font);
      return to ? `${to}${rest}` : m;
    });
    if (next !== da) node.set(N('DA'), PDFHexString.of(Buffer.from(next, 'latin1').toString('hex')));
  }
}
