// Unicode's Stream-Safe Text Format limit (UAX #15, section 13): no more than 30 non-starters in a row.
// No writing system needs more; a letter followed by 100,000 combining marks (issue 27) made shaping
// cost grow with the square of the marks on one base (fontkit looks back over every earlier mark to
// find the base, and a cluster is re-read per glyph), 30 s of a worker for a 300 KB value. Drawing
// keeps the first 30 marks of a run and leaves the rest out (decisions.md: dropped, not split by
// CGJ, so the layout stays as small as the text a reader could see). Counted are all combining marks
// and the zero-width joiners (which also attach to what precedes them): a superset of non-starters.

/** Most marks drawn in a row (UAX #15's limit on non-starters). */
export const MAX_MARKS_IN_A_ROW = 30;

const LONG_RUN = new RegExp(`[\\p{M}\\u200c\\u200d]{${MAX_MARKS_IN_A_ROW + 1},}`, 'gu');

/** `text` with every run of marks cut to the limit, and how many marks were left out. */
export function streamSafe(text: string): { text: string; dropped: number } {
  let dropped = 0;
  const safe = text.replace(LONG_RUN, (run) => {
    const marks = Array.from(run);
    dropped += marks.length - MAX_MARKS_IN_A_ROW;
    return marks.slice(0, MAX_MARKS_IN_A_ROW).join('');
  });
  return { text: safe, dropped };
}
