// Acrobat's AFSpecial_Keystroke(psf) (zip, zip+4, phone, SSN) and AFSpecial_KeystrokeEx(mask) commit
// checks, as pdf.js's scripting layer runs them in the sandbox (pdfjs-dist's pdf.sandbox.mjs: AFSpecial_Keystroke, AFSpecial_KeystrokeEx and its
// helper on commit). A value it accepts is committed unchanged, so a render whose only checks are these
// and accept every value needs no script session. A value it refuses still goes to the sandbox, which
// reports the refusal (test/pdf/scripts-special-check.test.ts compares the two on many values).

/** AFSpecial_Keystroke with a literal 0-3, or AFSpecial_KeystrokeEx with a plain string literal, alone. */
const SPECIAL_KEYSTROKE = /^\s*AFSpecial_Keystroke\s*\(\s*([0-3])\s*\)\s*;?\s*$/;
// (a line break inside the literal is a syntax error in JavaScript: left to the sandbox, which reports it)
const SPECIAL_KEYSTROKE_EX = /^\s*AFSpecial_KeystrokeEx\s*\(\s*"([^"\\\r\n]*)"\s*\)\s*;?\s*$/;

/** The check: AFSpecial_Keystroke's format number, or AFSpecial_KeystrokeEx's mask. */
export type SpecialCheck = number | string;

/** The check of a keystroke script that is one of the two calls alone, else undefined. */
export function specialKeystroke(code: string | undefined): SpecialCheck | undefined {
  if (code === undefined) return undefined;
  const psf = SPECIAL_KEYSTROKE.exec(code);
  if (psf) return Number(psf[1]);
  return SPECIAL_KEYSTROKE_EX.exec(code)?.[1];
}

const CHECKERS: Record<string, (c: string) => boolean> = {
  '9': (c) => c >= '0' && c <= '9',
  A: (c) => ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'),
  O: (c) => ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'),
  X: () => true,
};

/** One mask on commit: the whole value, UTF-16 unit by unit, as the helper compares them. */
function fits(value: string, mask: string): boolean {
  if (!mask || !value) return true; // the helper returns without refusing
  if (value.length !== mask.length) return false;
  for (let i = 0; i < value.length; i++) {
    const check = CHECKERS[mask.charAt(i)];
    if (check ? !check(value.charAt(i)) : mask.charAt(i) !== value.charAt(i)) return false;
  }
  return true;
}

/**
 * pdf.js picks the long phone mask for a value of more than 7 "digits" with `/^\p{N}+$/`, written without
 * the u flag: it matches the text "p{N}}", never digits, so ten digits typed without separators are
 * refused. Kept as pdf.js runs it (the test compares with the sandbox and will see a fixed pdf.js).
 */
const PDFJS_ALL_DIGITS = /^p\{N\}+$/;

/** AFSpecial_Keystroke's mask for `value` (pdf.js picks the phone mask by the value). */
function maskOf(value: string, psf: number): string {
  if (psf === 0) return '99999';
  if (psf === 1) return '99999-9999';
  if (psf === 2)
    return value.startsWith('(') || (value.length > 7 && PDFJS_ALL_DIGITS.test(value)) ? '(999) 999-9999' : '999-9999';
  return '999-99-9999';
}

/** Whether the check accepts `value` when it is committed. */
export function specialAccepts(value: string, check: SpecialCheck): boolean {
  const mask = typeof check === 'number' ? maskOf(value, check) : check;
  // AFSpecial_KeystrokeEx: the mask's placeholders alone first (typed without separators), then the mask
  return fits(value, mask.replace(/[^9AOX]/g, '')) || fits(value, mask);
}
