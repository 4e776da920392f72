// Reads Acrobat's AF* format calls out of a field's /AA /F JavaScript. Only literal arguments are
// understood; anything else (custom scripts) yields undefined and the field stays plain text.
import type { FieldFormat } from '../types.js';

type Arg = number | string | boolean;

/** Acrobat's AFDate_Format(n) table (same order as Acrobat's and pdf.js's AForm). */
export const AF_DATE_FORMATS = [
  'm/d',
  'm/d/yy',
  'mm/dd/yy',
  'mm/yy',
  'd-mmm',
  'd-mmm-yy',
  'dd-mmm-yy',
  'yy-mm-dd',
  'mmm-yy',
  'mmmm-yy',
  'mmm d, yyyy',
  'mmmm d, yyyy',
  'm/d/yy h:MM tt',
  'm/d/yy HH:MM',
] as const;

/** Acrobat's AFTime_Format(n) table. */
const AF_TIME_FORMATS = ['HH:MM', 'h:MM tt', 'HH:MM:ss', 'h:MM:ss tt'] as const;

const CALL = /\bAF(Date|Time|Number|Percent|Special)_(FormatEx|Format|KeystrokeEx)\s*\(/;

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v' };

/**
 * Reads a JavaScript string literal whose quote is at `src[start]`: the escapes \uXXXX, \u{X...},
 * \xXX, legacy octal (\0 to \377), \n \t \r \b \f \v, a line continuation, and any other escaped
 * character as itself (\\ \" \'). Returns the string and the index after the closing quote.
 */
export function readStringLiteral(src: string, start: number): { value: string; end: number } | undefined {
  const quote = src[start];
  let out = '';
  let i = start + 1;
  while (i < src.length && src[i] !== quote) {
    if (src[i] !== '\\') {
      if (src[i] === '\n' || src[i] === '\r') return undefined; // unterminated
      out += src[i++];
      continue;
    }
    const e = src[i + 1];
    if (e === undefined) return undefined;
    i += 2;
    if (e === 'u' && src[i] === '{') {
      const m = /^\{([0-9a-fA-F]{1,6})\}/.exec(src.slice(i, i + 9));
      const cp = m ? Number.parseInt(m[1], 16) : -1;
      if (!m || cp > 0x10ffff) return undefined;
      out += String.fromCodePoint(cp);
      i += m[0].length;
    } else if (e === 'u' || e === 'x') {
      const digits = src.slice(i, i + (e === 'u' ? 4 : 2));
      // a malformed escape is a syntax error in JavaScript: the script does not run
      if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== (e === 'u' ? 4 : 2)) return undefined;
      out += String.fromCharCode(Number.parseInt(digits, 16));
      i += digits.length;
    } else if (e >= '0' && e <= '7') {
      // legacy octal: up to three digits, at most \377
      let digits = e;
      while (digits.length < 3 && /[0-7]/.test(src[i] ?? '') && Number.parseInt(digits + src[i], 8) <= 0o377)
        digits += src[i++];
      out += String.fromCharCode(Number.parseInt(digits, 8));
    } else if (e === '\r') {
      if (src[i] === '\n') i++; // a line continuation adds nothing
    } else if (e !== '\n' && e !== '\u2028' && e !== '\u2029') {
      out += SIMPLE_ESCAPES[e] ?? e;
    }
  }
  return i < src.length ? { value: out, end: i + 1 } : undefined;
}

/** Parses the literal argument list starting just after "(", up to the matching ")". */
function parseArgs(src: string, start: number): Arg[] | undefined {
  const args: Arg[] = [];
  let i = start;
  const skipWs = () => {
    while (i < src.length && /\s/.test(src[i])) i++;
  };
  for (;;) {
    skipWs();
    if (src[i] === ')' && args.length === 0) return args;
    const ch = src[i];
    if (ch === '"' || ch === "'") {
      const literal = readStringLiteral(src, i);
      if (!literal) return undefined;
      args.push(literal.value);
      i = literal.end;
    } else {
      const m = /^(true|false|[+-]?(?:\d+\.?\d*|\.\d+))/.exec(src.slice(i, i + 40));
      if (!m) return undefined;
      args.push(m[1] === 'true' ? true : m[1] === 'false' ? false : Number(m[1]));
      i += m[1].length;
    }
    skipWs();
    if (src[i] === ')') return args;
    if (src[i] !== ',') return undefined;
    i++;
  }
}

const int = (v: Arg | undefined, dflt: number): number =>
  typeof v === 'number' && Number.isFinite(v)
    ? Math.trunc(v)
    : typeof v === 'string' && /^\d+$/.test(v)
      ? Number(v)
      : dflt;
const str = (v: Arg | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: Arg | undefined): boolean => v === true || v === 1 || v === 'true';

/** FieldFormat for a format script, or undefined when it holds no recognised AF* call. */
export function parseFormatAction(js: string | undefined): FieldFormat | undefined {
  if (!js) return undefined;
  const m = CALL.exec(js);
  if (!m) return undefined;
  const args = parseArgs(js, m.index + m[0].length);
  if (!args) return undefined;
  const [family, variant] = [m[1], m[2]];
  switch (family) {
    case 'Date': {
      const pattern = variant === 'Format' ? AF_DATE_FORMATS[int(args[0], -1)] : str(args[0]);
      return pattern ? { kind: 'date', pattern } : undefined;
    }
    case 'Time': {
      const pattern = variant === 'Format' ? AF_TIME_FORMATS[int(args[0], -1)] : str(args[0]);
      return pattern ? { kind: 'time', pattern } : undefined;
    }
    case 'Number':
      if (variant !== 'Format') return undefined;
      return {
        kind: 'number',
        decimals: Math.max(0, int(args[0], 0)),
        sepStyle: int(args[1], 0),
        negStyle: int(args[2], 0),
        currency: str(args[4]) ?? '',
        currencyPrepend: bool(args[5]),
      };
    case 'Percent':
      if (variant !== 'Format') return undefined;
      return { kind: 'percent', decimals: Math.max(0, int(args[0], 0)), sepStyle: int(args[1], 0) };
    case 'Special': {
      if (variant === 'Format') {
        const psf = int(args[0], -1);
        return psf >= 0 && psf <= 3 ? { kind: 'special', psf } : undefined;
      }
      const mask = str(args[0]);
      return mask ? { kind: 'specialEx', mask } : undefined;
    }
    default:
      return undefined;
  }
}
