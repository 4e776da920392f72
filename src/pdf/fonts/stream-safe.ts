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
  // Counted on the run's UTF-16 units, not by splitting it into code points: an array of 100,000 one-mark
  // strings was most of a render's time (and garbage) for a value of a letter and 99,999 marks.
  const safe = text.replace(LONG_RUN, (run) => {
    const kept = unitsOfCodePoints(run, MAX_MARKS_IN_A_ROW);
    dropped += codePoints(run, kept);
    return run.slice(0, kept);
  });
  return { text: safe, dropped };
}

/** UTF-16 units of the first `n` code points of `s`. */
function unitsOfCodePoints(s: string, n: number): number {
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) i += (s.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  return i;
}

/** Code points of `s` from unit `from` on, in a run of whole code points (marks are never lone surrogates). */
function codePoints(s: string, from: number): number {
  let n = s.length - from;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--;
  }
  return n;
}
