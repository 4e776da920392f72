// The section a field sits in, read from the page: the nearest heading above it in its column. Used only
// to tell apart fields whose suggested keys would otherwise be equal ("Street address" under "Debtor 1"
// and under "Debtor 2"), so a heading must be cheap to recognise and rarely wrong, not complete.
import { toFrame } from './page-text.js';
import type { LabelPage } from './page-labels.js';
import type { Phrase } from './text-phrases.js';
import type { Rect } from '../types.js';

/** A numbered part of a form: "Part II", "Section 3", "Cadre B", "Partie 2", "Schedule A". */
const NUMBERED_PART =
  /^(?:part|section|schedule|step|chapter|article|partie|cadre|rubrique|annexe|étape|teil|abschnitt|parte|sección|sezione|quadro)\s+(?:[IVXLC]+|\d{1,2}|[A-Z])\b/iu;
/** A numbered party or copy: "Debtor 1", "Maître d'apprentissage n°2", "Owner #2", "Child No. 3". */
const NUMBERED_ENTITY = /^\p{L}[\p{L}'’ -]{1,40}?\s(?:n[°º]\s?|no\.?\s?|#\s?)?\d{1,2}$/iu;

/** A running footer or header ("page 1", "Page 2 of 6"), not a section. */
const PAGE_NUMBER = /^(?:page|seite|página|pagina)\s+\d/iu;

/** A numbered question ("3. Within the last 8 years, did you..."): its number is the section. */
const NUMBERED_QUESTION = /^(\d{1,2})[.)]\s+\p{L}/u;

/** Longest heading kept as a section (a sentence is an instruction, not a heading). */
const MAX_HEADING_CHARS = 60;

/** Letters in upper case only, enough of them to be a word ("L'EMPLOYEUR", "PART I"), not "YYYY" or "USA". */
function isCapsLine(text: string): boolean {
  const letters = text.replace(/[^\p{L}]/gu, '');
  return letters.length >= 5 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
}

/** A widget of any field on the phrase's line, near it: then the phrase is a caption, not a heading. */
export function besideWidget(page: LabelPage, p: Phrase): boolean {
  const reach = Math.max(4 * p.size, 40);
  return page.widgets.some((w) => {
    const r = w.rect;
    const onLine = Math.min(p.top, r[3]) - Math.max(p.bottom, r[1]) >= 0.5 * Math.min(p.top - p.bottom, r[3] - r[1]);
    return onLine && r[0] - p.x1 <= reach && p.x0 - r[2] <= reach;
  });
}

/** The page's headings, top to bottom: numbered parts, numbered parties, capital lines, larger lines. */
export function pageHeadings(page: LabelPage): Phrase[] {
  const sizes = page.phrases.map((p) => p.size).sort((a, b) => a - b);
  const median = sizes[sizes.length >> 1] ?? 0;
  return page.phrases.filter((p) => {
    const text = p.text.trim().replace(/[\s:.]+$/, '');
    if (NUMBERED_QUESTION.test(text) && p.size >= 0.9 * median) return !besideWidget(page, p);
    if (
      text.length < 3 ||
      PAGE_NUMBER.test(text) ||
      text.length > MAX_HEADING_CHARS ||
      !/\p{L}/u.test(text) ||
      p.size < 0.9 * median
    )
      return false;
    const heading =
      NUMBERED_PART.test(text) ||
      NUMBERED_ENTITY.test(text) ||
      isCapsLine(text) ||
      (p.size >= 1.2 * median && /\p{L}{3}/u.test(text));
    return heading && !besideWidget(page, p);
  });
}

/**
 * The heading a widget sits under: the nearest line of headings above it; of several on that line
 * ("Debtor 1 ... Debtor 2"), the one starting furthest right that still starts before the widget ends,
 * else the first (a heading centred over the page covers its left column too). Undefined when none is above.
 */
export function sectionOf(page: LabelPage, headings: Phrase[], rect: Rect): string | undefined {
  const r = toFrame(rect, page.rotation);
  const above = headings.filter((h) => h.bottom >= r[3] - 0.2 * h.size);
  if (above.length === 0) return undefined;
  const nearest = above.reduce((a, b) => (b.y < a.y ? b : a));
  const line = above.filter((h) => Math.abs(h.y - nearest.y) <= 0.5 * h.size).sort((a, b) => a.x0 - b.x0);
  const before = line.filter((h) => h.x0 < (r[0] + r[2]) / 2);
  return (before.length ? before[before.length - 1] : line[0]).text.trim().replace(/[\s:]+$/, '');
}

/** The last heading of a page (the lowest): a section that goes on over the page break. */
export function lastHeading(headings: Phrase[]): string | undefined {
  return headings.reduce<Phrase | undefined>((low, h) => (!low || h.y < low.y ? h : low), undefined)?.text.trim();
}
