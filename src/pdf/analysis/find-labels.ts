// Page captions for every field and the words beside each radio button or check box state, read
// once per analysis. Best effort by contract: whatever goes wrong (no text layer, a file pdf.js
// refuses, the time or item budget spent) leaves captions empty and never fails the upload.
import type { PDFContext } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { widgetOnStates } from './field-info.js';
import { readPageText, type PageTextBudget } from './page-text.js';
import { buttonCaption, buttonWords, groupCaption, labelPage, textCaption, type LabelPage } from './page-labels.js';
import { lastHeading, pageHeadings, sectionOf } from './page-sections.js';
import type { Phrase } from './text-phrases.js';
import { widgetRect } from './placement.js';
import type { AnalysedField, Rect } from '../types.js';

/** A widget placed on a page, with the on-state it switches on (buttons). */
interface PlacedWidget {
  page: number;
  rect: Rect;
  state?: string;
}

/** What the finder needs of one field. */
export interface LabelInput {
  type: AnalysedField['type'];
  /** the values a caller sends: radio options, or a multi-state check box's states */
  options?: string[];
  /** radio: the on-state of each option */
  optionStates?: string[];
  widgets: PlacedWidget[];
}

export interface FoundLabel {
  /** the caption read on the page, null when none */
  caption: string | null;
  /** parallel to LabelInput.options: the words beside the button of each option, null when none */
  optionLabels?: (string | null)[];
  /** the heading the field sits under (page-sections.ts), when its page was read and has one */
  section?: string;
}

/** The finder's view of an analysed field and its raw widgets. */
export function labelInput(ctx: PDFContext, raw: RawField, field: Omit<AnalysedField, 'name'>): LabelInput {
  const widgets: PlacedWidget[] = [];
  raw.widgets.forEach((w, i) => {
    const page = raw.widgetPages[i];
    if (page === undefined || page < 0) return;
    const state = field.detail.ft === 'Btn' ? widgetOnStates(w)[0] : undefined;
    widgets.push({ page: page + 1, rect: widgetRect(ctx, w), ...(state !== undefined ? { state } : {}) });
  });
  const multiState = field.type === 'checkbox' && (field.detail.onStates?.length ?? 0) > 1;
  return {
    type: field.type,
    ...(field.type === 'radio' ? { options: field.options, optionStates: field.detail.optionStates } : {}),
    ...(multiState ? { options: field.detail.onStates, optionStates: field.detail.onStates } : {}),
    widgets,
  };
}

const orNull = (s: string) => (s === '' ? null : s);

function findOne(pages: Map<number, LabelPage>, owner: number, input: LabelInput): FoundLabel {
  const placed = input.widgets.filter((w) => pages.has(w.page));
  if (input.options && input.optionStates) {
    const optionLabels = input.optionStates.map((state) => {
      const w = placed.find((x) => x.state === state);
      return w ? orNull(buttonWords(pages.get(w.page) as LabelPage, owner, w.rect)) : null;
    });
    const first = placed[0];
    const caption = first
      ? groupCaption(
          pages.get(first.page) as LabelPage,
          owner,
          placed.filter((w) => w.page === first.page).map((w) => w.rect),
          optionLabels.filter((l): l is string => l !== null),
        )
      : '';
    return { caption: orNull(caption), optionLabels };
  }
  const button = input.type === 'checkbox' || input.type === 'radio';
  // a field shown in several places: the first place that has a caption
  for (const w of placed.slice(0, 4)) {
    const page = pages.get(w.page) as LabelPage;
    const caption = button ? buttonCaption(page, owner, w.rect) : textCaption(page, owner, w.rect);
    if (caption) return { caption };
  }
  return { caption: null };
}

/** The section of each field's first widget on a read page; a page without a heading above the widget goes on with the previous page's last one. */
function fieldSections(pages: Map<number, LabelPage>, fields: LabelInput[]): (string | undefined)[] {
  const headings = new Map<number, Phrase[]>();
  for (const [n, page] of pages) headings.set(n, pageHeadings(page));
  return fields.map((f) => {
    const w = f.widgets.find((x) => pages.has(x.page));
    if (!w) return undefined;
    const before = headings.get(w.page - 1);
    return (
      sectionOf(pages.get(w.page) as LabelPage, headings.get(w.page) ?? [], w.rect) ?? (before && lastHeading(before))
    );
  });
}

/**
 * Captions of `fields` (parallel to them). `wanted(i)` false skips a field whose caption is not
 * needed (it has a tooltip and no options); its widgets still stand between text and other fields.
 * `textOnly(pages)`, when given, makes the file pdf.js reads cheaper (text-only-pages.ts).
 */
export async function findLabels(
  bytes: Uint8Array,
  fields: LabelInput[],
  budget: PageTextBudget,
  wanted: (i: number) => boolean = () => true,
  textOnly?: (pages: number[]) => Uint8Array | undefined,
): Promise<FoundLabel[]> {
  const none = fields.map((): FoundLabel => ({ caption: null }));
  const pageNumbers = new Set<number>();
  fields.forEach((f, i) => {
    if (wanted(i)) for (const w of f.widgets) pageNumbers.add(w.page);
  });
  if (pageNumbers.size === 0) return none;
  const list = [...pageNumbers].sort((a, b) => a - b);
  let slim: Uint8Array | undefined;
  try {
    slim = textOnly?.(list);
  } catch {
    slim = undefined; // a content stream we cannot scan: pdf.js reads the file as it is
  }
  let texts = await readPageText(slim ?? bytes, list, budget);
  // a page the slimmed file lost (it should not happen) is read from the file itself
  if (slim && texts.size < list.length && performance.now() < budget.deadline)
    texts = await readPageText(bytes, list, budget);
  try {
    const pages = new Map<number, LabelPage>();
    for (const [n, text] of texts) {
      const widgets = fields.flatMap((f, owner) =>
        f.widgets.filter((w) => w.page === n).map((w) => ({ owner, rect: w.rect })),
      );
      pages.set(n, labelPage(text, widgets));
    }
    const sections = fieldSections(pages, fields);
    return fields.map((f, i) => {
      const found = wanted(i) ? findOne(pages, i, f) : { caption: null };
      return sections[i] ? { ...found, section: sections[i] } : found;
    });
  } catch {
    return none; // a bug here must not cost the upload: no captions is the honest answer
  }
}
