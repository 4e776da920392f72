// How a content stream moves the graphics state stack: the net q/Q depth it leaves and the lowest
// depth it reaches (below 0 when it restores more than it saved). Content we append after a page's
// own content must start from a balanced stack, whatever that content does: poppler drops a page
// whose content begins with an unmatched Q, and an unclosed q would move our drawings.
//
// A small tokenizer, not a parser: it skips strings, hex strings, comments and inline image data,
// and counts the q and Q operators. Division into several streams happens at token boundaries
// (PDF 32000-1, 7.8.2), so the balance of a page is the composition of its streams' balances.

import type { PDFStream } from '@cantoo/pdf-lib';
import { DELIMITER, SPACE, isRegular, literalStringEnd } from './content-lexing.js';

/** What a BalanceCache remembers of a stream past the renders' ceiling. */
export const TOO_LARGE = 'too large';

/**
 * Balances of content streams already read (streams of a template never change): per template, filled by
 * page-content.ts and, in a one-shot render, by the analysis's size check.
 */
export type BalanceCache = WeakMap<PDFStream, Balance | typeof TOO_LARGE>;

export interface Balance {
  /** depth after the stream, relative to its start */
  net: number;
  /** lowest depth reached, relative to the start (<= 0) */
  min: number;
}

export const BALANCED: Balance = { net: 0, min: 0 };

// A page's content is megabytes on some forms, scanned once per template (per render in the offline CLI),
// mostly by code V8 has not optimised yet: the byte classes are tables (two Set lookups a byte were ~90 ms
// of DS-11's offline render; the tables made it 777 -> 738 ms).
const q = 0x71;
const Q = 0x51;

/** End of inline image data after the ID operator: the next EI delimited by white space. */
function skipInlineImage(s: Uint8Array, i: number): number {
  for (let j = i + 1; j + 1 < s.length; j++) {
    if (s[j] === 0x45 && s[j + 1] === 0x49 && SPACE[s[j - 1]] && (j + 2 >= s.length || !isRegular(s[j + 2])))
      return j + 2;
  }
  return s.length;
}

export function contentBalance(s: Uint8Array): Balance {
  let depth = 0;
  let min = 0;
  let i = 0;
  while (i < s.length) {
    const b = s[i];
    if (SPACE[b]) i++;
    else if (b === 0x25) {
      while (i < s.length && s[i] !== 0x0a && s[i] !== 0x0d) i++;
    } else if (b === 0x28) i = literalStringEnd(s, i);
    else if (b === 0x3c) {
      if (s[i + 1] === 0x3c) i += 2;
      else {
        while (i < s.length && s[i] !== 0x3e) i++;
        i++;
      }
    } else if (b === 0x2f) {
      i++; // a name: its characters are no operator
      while (i < s.length && isRegular(s[i])) i++;
    } else if (DELIMITER[b]) i++;
    else {
      const start = i;
      while (i < s.length && isRegular(s[i])) i++;
      if (i - start === 1 && s[start] === q) depth++;
      else if (i - start === 1 && s[start] === Q) min = Math.min(min, --depth);
      else if (i - start === 2 && s[start] === 0x49 && s[start + 1] === 0x44) i = skipInlineImage(s, i);
    }
  }
  return { net: depth, min };
}

/** The balance of streams drawn one after the other. */
export function composeBalances(parts: Balance[]): Balance {
  let net = 0;
  let min = 0;
  for (const p of parts) {
    min = Math.min(min, net + p.min);
    net += p.net;
  }
  return { net, min };
}

/**
 * The operators that enclose a page's own content so that what follows starts at depth 0: enough
 * q before it that its extra Qs never empty the stack, and as many Q after it as are left open.
 */
export function enclosing(b: Balance): { before: string; after: string } {
  const saves = 1 - b.min;
  return { before: 'q\n'.repeat(saves), after: `${'\nQ'.repeat(saves + b.net)}\n` };
}
