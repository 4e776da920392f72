// Captions printed under writing lines ("____ / LAST", "____ / nom"): a short phrase hanging right under
// a line, starting where the line starts, is that line's caption, before anything to its left or above
// it (which, on such a form, is the caption hanging under the line above, or the block's heading). Only
// detected writing lines are read this way: under a ruled box, the words at the top of the next box are
// that box's caption.
import { cleanCaption, type LabelPage } from '../analysis/page-labels.js';
import { toFrame } from '../analysis/page-text.js';
import { besideWidget } from '../analysis/page-sections.js';
import type { Phrase } from '../analysis/text-phrases.js';
import type { Rect } from '../types.js';

/** Longest caption read under a line: a few words ("code postal", "EMPLOYEE SIGNATURE"). */
const MAX_UNDER_CHARS = 40;
/** A heading is this much larger than the captions under the lines of its block. */
const HEADING_SCALE = 1.15;
/** How far above a line its block's heading may stand (a block is a few lines). */
const HEADING_REACH = 90;

/** A date's pattern printed under its line ("MONTH/DAY/YEAR", "Month  Day  Year", "jj/mm/aaaa"): a hint, not a caption. */
const DATE_HINT =
  /^\(?(?:(?:mm|dd|yy|yyyy|jj|aaaa|tt|jjjj|month|day|year|mois|jour|année|monat|tag|jahr)\s*[/.-]?\s*){1,3}\)?$/iu;

/** The phrase hanging under the line at the bottom of `rect` (user space), if any. */
export function hangingPhrase(page: LabelPage, rect: Rect): Phrase | undefined {
  const r = toFrame(rect, page.rotation);
  const under = page.phrases
    .filter(
      (p) =>
        p.top <= r[1] + 0.3 * p.size &&
        r[1] - p.top <= 0.8 * p.size &&
        p.x0 >= r[0] - p.size &&
        p.x0 <= r[0] + 2 * p.size &&
        p.x0 < r[2] &&
        /\p{L}/u.test(p.text) &&
        cleanCaption(p.text).length <= MAX_UNDER_CHARS,
    )
    .sort((a, b) => b.top - a.top || a.x0 - b.x0)[0];
  return under && !DATE_HINT.test(cleanCaption(under.text)) ? under : undefined;
}

/**
 * The heading of the block of lines `rect` belongs to ("NAME" over "LAST / FIRST / MIDDLE"): the
 * nearest phrase above it, larger than the caption under its line, that is neither a caption hanging
 * under another line nor beside a field; of several on that line, the last to start left of the field's
 * middle. '' when there is none close enough.
 */
export function blockHeading(page: LabelPage, rect: Rect, under: Phrase, hanging: Set<Phrase>): string {
  const r = toFrame(rect, page.rotation);
  const above = page.phrases.filter(
    (p) =>
      !hanging.has(p) &&
      p.bottom >= r[3] - 0.2 * p.size &&
      p.bottom - r[3] <= HEADING_REACH &&
      p.size >= HEADING_SCALE * under.size &&
      p.x0 < (r[0] + r[2]) / 2 &&
      cleanCaption(p.text).length <= 60 &&
      /\p{L}/u.test(p.text) &&
      !besideWidget(page, p),
  );
  if (above.length === 0) return '';
  const nearest = above.reduce((a, b) => (b.bottom < a.bottom ? b : a));
  const line = above.filter((h) => Math.abs(h.bottom - nearest.bottom) <= 0.5 * h.size).sort((a, b) => a.x0 - b.x0);
  return cleanCaption(line[line.length - 1].text);
}
