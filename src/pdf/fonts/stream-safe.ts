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
 * Whether each BMP code point is a mark, as the regex answers it, kept once asked (0: not asked yet, 1: a
 * mark, 2: not one); a value's few distinct characters are asked once per process, not once per character.
 * Read per character, it keeps streamSafe linear and cheap: the regex it replaces, a run of 31 or more
 * marks, spent ~22 ns a character in Unicode mode and backtracked over every run of exactly 30 (50 ms for
 * 100,000 code points of letters with 30 marks each, 2-3 ms for a letter and 99,999 marks). A memo of a
 * Unicode property, the same for every caller.
 */
const bmpKinds = new Uint8Array(0x10000);

function isBmpMark(c: number): boolean {
  let kind = bmpKinds[c]!;
  if (kind === 0) bmpKinds[c] = kind = MARK.test(String.fromCharCode(c)) ? 1 : 2;
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
    let mark: boolean;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      // a surrogate pair: an astral mark is rare (musical symbols, Brahmi signs), so the regex decides
      if (d >= 0xdc00 && d <= 0xdfff) width = 2;
      mark = width === 2 && MARK.test(text.slice(i, i + 2));
    } else mark = c >= 0xd800 && c <= 0xdfff ? false : isBmpMark(c);
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
