// What the content-stream scanners share (content-balance.ts counts q and Q; analysis/
// text-only-pages.ts keeps the operators that place text): PDF's byte classes (PDF 32000-1, 7.2.2) as
// tables indexed by byte, cheaper than a Set in code V8 has not optimised yet, and the end of a literal
// string.

/** 1 for white space: NUL, TAB, LF, FF, CR, space */
export const SPACE = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) SPACE[c] = 1;
/** 1 for a delimiter: ( ) < > [ ] { } / % */
export const DELIMITER = new Uint8Array(256);
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) DELIMITER[c] = 1;

/** A byte of a name, number or operator: neither white space nor a delimiter. */
export const isRegular = (b: number): boolean => SPACE[b] === 0 && DELIMITER[b] === 0;

/** End of the literal string opening at `i` (the '('): nested parentheses, backslash escapes. */
export function literalStringEnd(s: Uint8Array, i: number): number {
  let depth = 0;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === 0x5c)
      i++; // backslash escapes the next byte
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return s.length;
}
