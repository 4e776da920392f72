// Active content: what a template can make a viewer DO rather than show. Rendered PDFs go to people
// who did not write the template, so outputs carry none of it: scripts (document, page, field and
// link JavaScript, the /Names /JavaScript tree, /OpenAction), actions that open or fetch other
// things (Launch, GoToR, GoToE, ImportData, multimedia), form submission, embedded files and file
// attachments. Plain /URI links are inert until clicked and viewers ask first; they are kept only
// where the operator allows them (OUTPUT_URI_LINKS). Navigation inside the file (GoTo, Named) stays.
//
// One walk serves both ends: analysis lists what a template has (the schema says what outputs
// leave out) and preparation strips it once per template version, before the base file is saved.
import { PDFArray, PDFDict, PDFName, PDFRef, type PDFObject } from '@cantoo/pdf-lib';
import { N, getDict } from '../pdf-objects.js';

export type ActiveFeature = 'javascript' | 'launch-actions' | 'submit-actions' | 'embedded-files' | 'uri-links';

const KIND_OF_ACTION: Record<string, ActiveFeature> = {
  JavaScript: 'javascript',
  Launch: 'launch-actions',
  GoToR: 'launch-actions',
  GoToE: 'launch-actions',
  ImportData: 'launch-actions',
  Rendition: 'launch-actions',
  Movie: 'launch-actions',
  Sound: 'launch-actions',
  RichMediaExecute: 'launch-actions',
  SubmitForm: 'submit-actions',
  URI: 'uri-links',
};

/** Bound on action chains (/Next) and other walks: hostile files may nest or loop. */
const MAX_ACTIONS = 1000;
/** Bookmarks read; a longer outline loses the rest (only its actions could matter, and they go). */
const MAX_OUTLINE_ITEMS = 100_000;

export interface ActiveContentScope {
  catalog: PDFDict;
  pages: PDFDict[];
  /** field and widget dictionaries (widgets of orphan fields included) */
  formDicts: PDFDict[];
}

function lookup(obj: PDFObject | undefined, from: PDFDict): PDFObject | undefined {
  return obj instanceof PDFRef ? from.context.lookup(obj) : obj;
}

/** The features an action and its /Next chain use. */
function actionFeatures(action: PDFObject | undefined, from: PDFDict, found: Set<ActiveFeature>): void {
  const queue: (PDFObject | undefined)[] = [action];
  const seen = new Set<PDFObject>();
  while (queue.length && seen.size < MAX_ACTIONS) {
    const a = lookup(queue.shift(), from);
    if (!(a instanceof PDFDict) || seen.has(a)) continue;
    seen.add(a);
    const s = a.lookup(N('S'));
    const kind = s instanceof PDFName ? KIND_OF_ACTION[s.decodeText()] : undefined;
    if (kind) found.add(kind);
    // A /JS entry is a script whatever /S says.
    if (a.has(N('JS'))) found.add('javascript');
    const next = lookup(a.get(N('Next')), a);
    if (next instanceof PDFArray) for (let i = 0; i < next.size(); i++) queue.push(next.get(i));
    else if (next) queue.push(next);
  }
  // A chain too long to read whole is taken for the worst: whatever it hides is dropped with it.
  if (queue.length) found.add('javascript');
}

/** The features of every action in an additional-actions (/AA) dictionary. */
function aaFeatures(aa: PDFDict | undefined, found: Set<ActiveFeature>): void {
  if (!aa) return;
  for (const [, action] of aa.entries()) actionFeatures(action, aa, found);
}

function annotations(page: PDFDict): PDFDict[] {
  const annots = lookup(page.get(N('Annots')), page);
  if (!(annots instanceof PDFArray)) return [];
  const out: PDFDict[] = [];
  for (let i = 0; i < annots.size(); i++) {
    const a = annots.lookup(i);
    if (a instanceof PDFDict) out.push(a);
  }
  return out;
}

/** Annotations that carry files, scripts or media of their own: removed whole. */
const CARRIERS = new Set(['FileAttachment', 'RichMedia', '3D', 'Movie', 'Sound', 'Screen']);
const isCarrier = (annot: PDFDict) => {
  const subtype = annot.lookup(N('Subtype'));
  return subtype instanceof PDFName && CARRIERS.has(subtype.decodeText());
};

/** The document outline's items (bookmarks), each of which may carry an action. Bounded, cycle-safe. */
function outlineItems(catalog: PDFDict): PDFDict[] {
  const root = getDict(catalog, 'Outlines');
  if (!root) return [];
  const items: PDFDict[] = [];
  const seen = new Set<PDFDict>();
  const stack: (PDFObject | undefined)[] = [root.get(N('First'))];
  while (stack.length && items.length < MAX_OUTLINE_ITEMS) {
    const item = lookup(stack.pop(), root);
    if (!(item instanceof PDFDict) || seen.has(item)) continue;
    seen.add(item);
    items.push(item);
    stack.push(item.get(N('Next')), item.get(N('First')));
  }
  return items;
}

/** What active content the document has. */
export function findActiveContent({ catalog, pages, formDicts }: ActiveContentScope): Set<ActiveFeature> {
  const found = new Set<ActiveFeature>();
  const open = lookup(catalog.get(N('OpenAction')), catalog);
  if (open instanceof PDFDict) actionFeatures(open, catalog, found);
  aaFeatures(getDict(catalog, 'AA'), found);
  const names = getDict(catalog, 'Names');
  if (names?.has(N('JavaScript'))) found.add('javascript');
  if (names?.has(N('EmbeddedFiles')) || catalog.has(N('AF'))) found.add('embedded-files');
  const acroForm = getDict(catalog, 'AcroForm');
  if (acroForm) aaFeatures(getDict(acroForm, 'AA'), found);
  for (const item of outlineItems(catalog)) actionFeatures(item.get(N('A')), item, found);
  for (const page of pages) {
    aaFeatures(getDict(page, 'AA'), found);
    if (page.has(N('AF'))) found.add('embedded-files');
    for (const annot of annotations(page)) {
      if (isCarrier(annot)) found.add('embedded-files');
      actionFeatures(annot.get(N('A')), annot, found);
      aaFeatures(getDict(annot, 'AA'), found);
    }
  }
  for (const d of formDicts) {
    actionFeatures(d.get(N('A')), d, found);
    aaFeatures(getDict(d, 'AA'), found);
  }
  return found;
}

/** A link or widget action a person may still trigger: only navigation, and URIs where allowed. */
function keepAction(action: PDFObject | undefined, from: PDFDict, keepUriLinks: boolean): boolean {
  const used = new Set<ActiveFeature>();
  actionFeatures(action, from, used);
  return [...used].every((f) => f === 'uri-links' && keepUriLinks);
}

/** Removes active content in place (see the header). */
export function stripActiveContent(
  { catalog, pages, formDicts }: ActiveContentScope,
  opts: { keepUriLinks: boolean },
): void {
  const open = lookup(catalog.get(N('OpenAction')), catalog);
  if (open instanceof PDFDict && !keepAction(open, catalog, false)) catalog.delete(N('OpenAction'));
  catalog.delete(N('AA'));
  const names = getDict(catalog, 'Names');
  names?.delete(N('JavaScript'));
  names?.delete(N('EmbeddedFiles'));
  catalog.delete(N('AF')); // associated files
  const acroForm = getDict(catalog, 'AcroForm');
  acroForm?.delete(N('CO')); // calculation order: only names fields whose /AA /C scripts are gone
  acroForm?.delete(N('AA'));
  for (const item of outlineItems(catalog)) stripFrom(item, opts.keepUriLinks);
  for (const page of pages) {
    page.delete(N('AA'));
    page.delete(N('AF'));
    const annots = lookup(page.get(N('Annots')), page);
    if (annots instanceof PDFArray) {
      const kept: PDFObject[] = [];
      for (let i = 0; i < annots.size(); i++) {
        const a = annots.lookup(i);
        if (a instanceof PDFDict && isCarrier(a)) continue;
        kept.push(annots.get(i));
      }
      if (kept.length !== annots.size()) page.set(N('Annots'), page.context.obj(kept));
    }
    for (const annot of annotations(page)) stripFrom(annot, opts.keepUriLinks);
  }
  for (const d of formDicts) stripFrom(d, opts.keepUriLinks);
}

function stripFrom(dict: PDFDict, keepUriLinks: boolean): void {
  dict.delete(N('AA'));
  if (dict.has(N('A')) && !keepAction(dict.get(N('A')), dict, keepUriLinks)) dict.delete(N('A'));
}
