// Unicode's Stream-Safe Text Format limit (UAX #15, section 13): no more than 30 non-starters in a row.
// No writing system needs more; a letter followed by 100,000 combining marks (issue 27) made shaping
// cost grow with the square of the marks on one base (fontkit looks back over every earlier mark to
// find the base, and a cluster is re-read per glyph), 30 s of a worker for a 300 KB value. Drawing
// keeps the first 30 marks of a run and leaves the rest out (decisions.md: dropped, not split by
// CGJ, so the layout stays as small as the text a reader could see). Counted are all combining marks
// and the zero-width joiners (which also attach to what precedes them): a superset of non-starters.

/** Most marks drawn in a row (UAX #15's limit on non-starters). */
export const MAX_MARKS_IN_A_ROW = 30;

/** What counts as a mark: a combining mark (General_Category M) or a zero-width (non-)joiner. */
const MARK = /[\p{M}\u200c\u200d]/u;
/** No character at or above U+0300 (the first combining mark): no mark at all. */
const MAY_HOLD_MARKS = /[^\u0000-\u02ff]/;

/**
 * Whether each code point of the BMP and of plane 1 (emoji, most astral marks) is a mark, as MARK answers
 * it, kept once asked (0: not asked yet, 1: a mark, 2: not one): a value's distinct characters are asked
 * once per process, not once per character, which keeps streamSafe linear and cheap (docs/decisions.md
 * "A large value's cost in the API process and the worker"). Other planes are asked each time. A memo of
 * a Unicode property, the same for every caller.
 */
const kinds = new Uint8Array(0x20000);

function isMark(cp: number): boolean {
  if (cp >= kinds.length) return MARK.test(String.fromCodePoint(cp));
  let kind = kinds[cp]!;
  if (kind === 0) kinds[cp] = kind = MARK.test(String.fromCodePoint(cp)) ? 1 : 2;
  return kind === 1;
}

/** `text` with every run of marks cut to the limit, and how many marks (code points) were left out. */
export function streamSafe(text: string): { text: string; dropped: number } {
  if (!MAY_HOLD_MARKS.test(text)) return { text, dropped: 0 };
  let parts: string[] | undefined;
  let kept = 0; // text before this unit is in `parts` (or still to be taken whole)
  let run = 0; // marks in a row so far, in code points
  let cutFrom = -1; // where the current run passed the limit
  let dropped = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let width = 1;
    let mark = false;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        width = 2;
        mark = isMark(0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
      }
    } else if (c < 0xdc00 || c > 0xdfff) mark = isMark(c); // a lone low surrogate is no mark
    if (mark) {
      if (++run > MAX_MARKS_IN_A_ROW) {
        if (cutFrom < 0) cutFrom = i;
        dropped++;
      }
    } else {
      if (cutFrom >= 0) {
        (parts ??= []).push(text.slice(kept, cutFrom));
        kept = i;
        cutFrom = -1;
      }
      run = 0;
    }
    i += width;
  }
  if (cutFrom >= 0) {
    (parts ??= []).push(text.slice(kept, cutFrom));
    kept = text.length;
  }
  if (!parts) return { text, dropped: 0 };
  parts.push(text.slice(kept));
  return { text: parts.join(''), dropped };
}
