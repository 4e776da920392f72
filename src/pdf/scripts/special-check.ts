// Acrobat's AFSpecial_Keystroke(psf) commit check (zip, zip+4, phone, SSN), as pdf.js's scripting layer
// runs it in the sandbox (pdfjs-dist's pdf.sandbox.mjs: AFSpecial_Keystroke, AFSpecial_KeystrokeEx and its
// helper on commit). A value it accepts is committed unchanged, so a render whose only checks are these
// and accept every value needs no script session. A value it refuses still goes to the sandbox, which
// reports the refusal (test/pdf/scripts-special-check.test.ts compares the two on many values).

/** AFSpecial_Keystroke with a literal 0-3, alone: the only form of it this check stands in for. */
const SPECIAL_KEYSTROKE = /^\s*AFSpecial_Keystroke\s*\(\s*([0-3])\s*\)\s*;?\s*$/;

/** psf of a keystroke script that is AFSpecial_Keystroke(psf) alone, else undefined. */
export function specialKeystroke(code: string | undefined): number | undefined {
  const m = code === undefined ? null : SPECIAL_KEYSTROKE.exec(code);
  return m ? Number(m[1]) : undefined;
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

/** Whether AFSpecial_Keystroke(psf) accepts `value` when it is committed. */
export function specialAccepts(value: string, psf: number): boolean {
  const mask =
    psf === 0
      ? '99999'
      : psf === 1
        ? '99999-9999'
        : psf === 2
          ? value.startsWith('(') || (value.length > 7 && PDFJS_ALL_DIGITS.test(value))
            ? '(999) 999-9999'
            : '999-9999'
          : '999-99-9999';
  // AFSpecial_KeystrokeEx: the mask's placeholders alone first (digits typed without separators), then the mask
  return fits(value, mask.replace(/[^9AOX]/g, '')) || fits(value, mask);
}
