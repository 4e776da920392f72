// Combines finished renders into one PDF: every page of every item, in order. Flattened items bring
// pages only; an interactive item brings its fields too, renamed "name#n" for item n (form-copy.ts),
// so every copy keeps a value of its own in one /AcroForm. Appearance streams are kept and
// /NeedAppearances is false: viewers draw what the engine drew. The default resources (/DR) of every
// item are merged; a name two items use for different resources is renamed in the later item's /DA
// strings. Page trees are rebuilt: one node per item under a new root, inherited page attributes
// copied onto each page. Outlines, structure trees, named destinations and document metadata of the
// items are left out (an item is one form, not a book), and so are the items' signatures
// (signed-fields.ts): each signs its own file, not this one. A combined file to be signed gets its
// (invisible) signature field in its one revision, the byte range filled and hashed as it is written
// (the caller adds the CMS over that digest), so a signed combine never reads its output back.
import { createHash } from 'node:crypto';
import {
  PDFArray,
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
import { placeByteRange } from '../seal/byte-range.js';
import {
  ANNOT_PRINT_LOCKED,
  SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY,
  signatureDictionary,
  type SignatureSlot,
} from '../seal/signature-placeholder.js';
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

/** A combine's signature slot once written: the CMS over `digest` goes into `/Contents`. */
export interface PreparedSignature {
  /** the signature's /ByteRange: the CMS's hex goes at byteRange[1] + 1, within byteRange[2] - 1 */
  byteRange: [number, number, number, number];
  /** SHA-256 of the signed parts, hex */
  digest: string;
}

export interface CombineOutcome {
  /** bytes written */
  size: number;
  /** present when a signature was asked for */
  signature?: PreparedSignature;
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
 * output. With `signature`, the file carries an invisible signature field whose byte range is filled
 * and hashed here (PreparedSignature), its /Contents left zero for the caller's CMS.
 */
export async function combineInto(
  items: Iterable<CombineItem> | AsyncIterable<CombineItem>,
  write: (chunk: Uint8Array) => void,
  signature?: SignatureSlot,
): Promise<CombineOutcome> {
  // Signing: everything before the signature dictionary is hashed as it goes out; the dictionary and the
  // cross-reference after it (`tail`) wait until the byte range is known, which only their length decides.
  const hash = signature ? createHash('sha256') : undefined;
  let tail: Uint8Array[] | undefined;
  const out = new CombinedWriter((chunk) => {
    if (tail) tail.push(chunk);
    else {
      hash?.update(chunk);
      write(chunk);
    }
  });
  const catalogNum = out.reserve();
  const rootNum = out.reserve();
  const own = PDFContext.create(); // builds our own objects; their references are combined-file numbers
  const ref = (num: number) => PDFRef.of(num);
  const itemNodes: { num: number; pages: number[] }[] = [];
  const fields: number[] = [];
  const resources = new ResourceMerge();
  let defaultDA: PDFObject | undefined;
  const signed = signature && { sigNum: out.reserve(), widgetNum: out.reserve(), pageNum: 0 };

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
    // the signature's widget goes on the first page (readers list a field by its widget's page)
    const widgetOn = signed && !signed.pageNum && pages.length > 0 ? pages[0] : undefined;
    if (widgetOn) {
      const placeholder = ctx.nextRef();
      fixed.set(placeholder, signed!.widgetNum);
      const annots = widgetOn.dict.lookup(N('Annots'));
      const kept = annots instanceof PDFArray ? annots.asArray() : [];
      widgetOn.dict.set(N('Annots'), ctx.obj([...kept, placeholder])); // a copy: an array pages share stays theirs
    }

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
    if (widgetOn) signed!.pageNum = plan.numbers.get(pageRefs[0])!;
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
  if (signed) {
    const widget = own.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      T: PDFHexString.fromText('Signature1'), // every item's own fields are renamed "name#n"
      F: ANNOT_PRINT_LOCKED,
      Rect: [0, 0, 0, 0],
      V: ref(signed.sigNum),
      P: ref(signed.pageNum),
    });
    out.writeOwn(signed.widgetNum, widget);
    fields.push(signed.widgetNum);
  }
  if (fields.length > 0) {
    const acroFormNum = out.reserve();
    const acroForm = own.obj({ Fields: fields.map(ref), NeedAppearances: false });
    if (signed) acroForm.set(N('SigFlags'), own.obj(SIG_FLAGS_SIGNATURES_EXIST_APPEND_ONLY));
    acroForm.set(N('DR'), resources.toDict(own));
    const da = defaultDA instanceof PDFString || defaultDA instanceof PDFHexString ? defaultDA : undefined;
    if (da) acroForm.set(N('DA'), da);
    out.writeOwn(acroFormNum, acroForm);
    catalog.set(N('AcroForm'), ref(acroFormNum));
  }
  out.writeOwn(catalogNum, catalog);
  if (!signature || !signed || !hash) return { size: out.finish(catalogNum) };

  out.drain();
  tail = [];
  out.writeOwn(signed.sigNum, signatureDictionary(own, signature));
  const size = out.finish(catalogNum);
  const end = Buffer.concat(tail);
  const tailOffset = size - end.byteLength;
  const byteRange = placeByteRange(end, tailOffset, size);
  hash.update(end.subarray(0, byteRange[1] - tailOffset)).update(end.subarray(byteRange[2] - tailOffset));
  write(end);
  return { size, signature: { byteRange, digest: hash.digest('hex') } };
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
