// Display formatting of render values, following the field's Acrobat format action (AFDate_FormatEx,
// AFTime_FormatEx, AFNumber_Format, AFPercent_Format, AFSpecial_Format, AFSpecial_KeystrokeEx masks)
// or, without one, the render locale. Pure: no I/O, never throws on user input.
//
// Decisions (documented for the API docs):
// - Locale short dates print a four-digit year (fr-FR 05/03/2024, en-US 3/5/2024, de-DE 05.03.2024):
//   Intl's dateStyle 'short' gives two digits in several locales, which is ambiguous on a form.
// - Month and weekday names (mmm, mmmm, ddd, dddd) follow the render locale: the `locale` option exists
//   to localise dates. For English locales they are Acrobat's exactly ("Sep", not en-GB "Sept").
//   am/pm (tt, t) stay Acrobat's lowercase English.
// - Intl output is made drawable with standard PDF fonts: U+202F (fr-FR group separator) becomes
//   U+00A0 (in WinAnsi, and still unbreakable), U+2212 minus becomes "-", bidi marks are dropped.
// - Numbers are rounded half away from zero on the decimal the caller sent (1.005 with 2 decimals ->
//   1.01), not on its binary approximation. Without a format, all the caller's digits are kept.
// - AFNumber negStyle 1 ("red") and 3 ("red parens") colour the value as Acrobat does: red for a
//   negative number, black for any other (whatever the field's /DA colour). Style 1 still keeps the
//   minus sign, which Acrobat drops: /V holds the formatted text, and a copy, a text extraction or a
//   grey print would read the number as positive. A negative that rounds to zero is zero: black.

import type { FieldFormat, TextColor } from '../../pdf/types.js';
import {
  memo,
  civilToEpoch,
  isValidTimeZone,
  parseDateInput,
  parseTimeInput,
  type CivilDateTime,
} from './date-parse.js';

export type FormatResult = { ok: true; text: string; color?: TextColor } | { ok: false; reason: string };

export interface FormatContext {
  /** BCP 47 tag, validated by the caller (isSupportedLocale) */
  locale: string;
  /** IANA zone, e.g. "Europe/Paris" */
  timezone: string;
}

const ok = (text: string): FormatResult => ({ ok: true, text });

/** Makes Intl output drawable with WinAnsi fonts without changing what it says. */
function pdfSafe(text: string): string {
  return text
    .replace(/[\u200e\u200f\u061c]/g, '')
    .replace(/\u202f/g, '\u00a0')
    .replace(/\u2212/g, '-');
}

function clampInt(n: number, min: number, max: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.floor(n))) : min;
}

// ---- dates -------------------------------------------------------------------------------------

const nameCache = memo<string[]>();
function isEnglish(locale: string): boolean {
  return /^en(?:-|$)/i.test(locale);
}

/** Month names in their in-date form (Polish "września", not "wrzesień"), twelve entries. */
function monthNames(locale: string, style: 'long' | 'short'): string[] {
  return nameCache.remember(`m|${style}|${locale}`, () => {
    if (isEnglish(locale) && style === 'short') return monthNames('en', 'long').map((n) => n.slice(0, 3));
    const inDate = new Intl.DateTimeFormat(locale, { day: 'numeric', month: style, timeZone: 'UTC' });
    const alone = new Intl.DateTimeFormat(locale, { month: style, timeZone: 'UTC' });
    return Array.from({ length: 12 }, (_, i) => {
      const when = Date.UTC(2024, i, 15);
      const part = inDate.formatToParts(when).find((p) => p.type === 'month')?.value ?? '';
      // CJK locales put "月" in a literal next to a numeric month: use the stand-alone form ("9月").
      return pdfSafe(/^\d*$/.test(part) ? alone.format(when) : part);
    });
  });
}

/** Weekday names, Sunday first. */
function weekdayNames(locale: string, style: 'long' | 'short'): string[] {
  return nameCache.remember(`w|${style}|${locale}`, () => {
    if (isEnglish(locale) && style === 'short') return weekdayNames('en', 'long').map((n) => n.slice(0, 3));
    const f = new Intl.DateTimeFormat(locale, { weekday: style, timeZone: 'UTC' });
    // 2024-03-03 was a Sunday
    return Array.from({ length: 7 }, (_, i) => pdfSafe(f.format(Date.UTC(2024, 2, 3 + i))));
  });
}

const TOKEN_RE = /mmmm|mmm|mm|m|dddd|ddd|dd|d|yyyy|yy|HH|H|hh|h|MM|M|ss|s|tt|t|\\./g;

/**
 * util.printd / AFDate_FormatEx / AFTime_FormatEx tokens: d dd ddd dddd, m mm mmm mmmm, yy yyyy,
 * H HH (24 h), h hh (12 h), M MM (minutes), s ss, t tt (a/p, am/pm); `\x` prints x; anything else
 * is literal. Tokens are case-sensitive and matched longest first ("yyy" is "yy" + "y").
 */
export function formatDatePattern(v: CivilDateTime, pattern: string, locale: string): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const hour12 = ((v.hour + 11) % 12) + 1;
  return pattern.replace(TOKEN_RE, (tok) => {
    switch (tok) {
      case 'mmmm':
        return monthNames(locale, 'long')[v.month - 1];
      case 'mmm':
        return monthNames(locale, 'short')[v.month - 1];
      case 'mm':
        return pad(v.month);
      case 'm':
        return String(v.month);
      case 'dddd':
        return weekdayNames(locale, 'long')[new Date(civilToEpoch(v)).getUTCDay()];
      case 'ddd':
        return weekdayNames(locale, 'short')[new Date(civilToEpoch(v)).getUTCDay()];
      case 'dd':
        return pad(v.day);
      case 'd':
        return String(v.day);
      case 'yyyy':
        return pad(v.year, 4);
      case 'yy':
        return pad(v.year % 100);
      case 'HH':
        return pad(v.hour);
      case 'H':
        return String(v.hour);
      case 'hh':
        return pad(hour12);
      case 'h':
        return String(hour12);
      case 'MM':
        return pad(v.minute);
      case 'M':
        return String(v.minute);
      case 'ss':
        return pad(v.second);
      case 's':
        return String(v.second);
      case 'tt':
        return v.hour < 12 ? 'am' : 'pm';
      case 't':
        return v.hour < 12 ? 'a' : 'p';
      default:
        return tok.slice(1); // "\x": escaped literal
    }
  });
}

const shortDateCache = memo<{ date: Intl.DateTimeFormat; year: Intl.DateTimeFormat }>();

/** The locale's short date (Intl dateStyle 'short') with the year always written in full. */
function formatLocaleShortDate(v: CivilDateTime, locale: string): string {
  const f = shortDateCache.remember(locale, () => ({
    date: new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeZone: 'UTC' }),
    year: new Intl.DateTimeFormat(locale, { year: 'numeric', timeZone: 'UTC' }),
  }));
  const when = civilToEpoch(v);
  const fullYear = f.year.formatToParts(when).find((p) => p.type === 'year')?.value;
  const text = f.date
    .formatToParts(when)
    .map((p) => (p.type === 'year' && fullYear ? fullYear : p.value))
    .join('');
  return pdfSafe(text);
}

function datePattern(format: FieldFormat | undefined): string | undefined {
  if ((format?.kind === 'date' || format?.kind === 'time') && format.pattern.trim() !== '') return format.pattern;
  return undefined;
}

/**
 * A date field's value: parse (ISO 8601 or the locale's short date), move a date-time into
 * `ctx.timezone`, then print with the field's AFDate/AFTime pattern or the locale's short date.
 */
export function formatDateValue(input: string, format: FieldFormat | undefined, ctx: FormatContext): FormatResult {
  if (!isValidTimeZone(ctx.timezone)) return { ok: false, reason: `unknown time zone "${ctx.timezone}"` };
  const parsed = parseDateInput(input, ctx.locale, ctx.timezone);
  if (!parsed.ok) return parsed;
  const pattern = datePattern(format);
  return ok(
    pattern ? formatDatePattern(parsed.value, pattern, ctx.locale) : formatLocaleShortDate(parsed.value, ctx.locale),
  );
}

// ---- numbers -----------------------------------------------------------------------------------

/**
 * |value| × 10^shift with exactly `decimals` decimals, "." as the point, no grouping: the shortest decimal
 * that reads back as `value` (what the caller wrote), shifted without float error and rounded half away
 * from zero on its exact digits, as Intl.NumberFormat would (1.005 → "1.01", where toFixed gives "1.00").
 * Worked on the digits themselves: the first Intl.NumberFormat of a process loads ICU's number data
 * (~9 ms), which an offline render paid for every form with an AFNumber field.
 */
function fixedDigits(value: number, decimals: number, shift = 0): string {
  const [mantissa, exponent = '0'] = String(Math.abs(value)).split('e');
  const [int, frac = ''] = mantissa.split('.');
  let digits = int + frac;
  // where the point falls in `digits`
  let point = int.length + Number(exponent) + shift;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  const keep = point + decimals;
  if (digits.length <= keep) digits = digits.padEnd(keep, '0');
  else {
    const up = digits.charCodeAt(keep) >= 0x35; // the next digit is 5 or more
    digits = digits.slice(0, keep);
    if (up) {
      digits = addOne(digits);
      if (digits.length > keep) point++;
    }
  }
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  return decimals > 0 ? `${whole}.${digits.slice(point)}` : whole;
}

/** The decimal string `digits` plus one in its last place ("" + 1 is "1"; "99" + 1 is "100"). */
function addOne(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  if (i < 0) return `1${'0'.repeat(digits.length)}`;
  return digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - i - 1);
}

/** AFNumber sepStyle: [group separator, decimal point]. */
const SEP_STYLES: [string, string][] = [
  [',', '.'],
  ['', '.'],
  ['.', ','],
  ['', ','],
  ["'", '.'],
];

function groupDigits(fixed: string, sepStyle: number): string {
  const [int, frac] = fixed.split('.');
  const [group, point] = SEP_STYLES[clampInt(sepStyle, 0, 4)];
  const grouped = group ? int.replace(/\B(?=(\d{3})+$)/g, group) : int;
  return frac === undefined ? grouped : `${grouped}${point}${frac}`;
}

/** AFNumber_Format(nDec, sepStyle, negStyle, currStyle, strCurrency, bCurrencyPrepend). */
function formatAfNumber(value: number, f: Extract<FieldFormat, { kind: 'number' }>): FormatResult {
  const body = groupDigits(fixedDigits(value, clampInt(f.decimals, 0, 20)), f.sepStyle);
  const money = f.currencyPrepend ? `${f.currency}${body}` : `${body}${f.currency}`;
  // a negative that rounds to zero prints unsigned, as "0.00"
  const negative = value < 0 && /[1-9]/.test(body);
  const colored = f.negStyle === 1 || f.negStyle === 3;
  const color: TextColor | undefined = colored ? (negative ? 'red' : 'black') : undefined;
  const text = !negative ? money : f.negStyle === 2 || f.negStyle === 3 ? `(${money})` : `-${money}`;
  return color ? { ok: true, text, color } : ok(text);
}

/** AFPercent_Format(nDec, sepStyle): value × 100, then "%". */
function formatAfPercent(value: number, decimals: number, sepStyle: number): string {
  const body = groupDigits(fixedDigits(value, clampInt(decimals, 0, 20), 2), sepStyle);
  return `${value < 0 && /[1-9]/.test(body) ? '-' : ''}${body}%`;
}

/** Code points of the text `digits` integer digits take in an AFNumber / AFPercent format, sign aside. */
function shownLength(digits: number, decimals: number, sepStyle: number, affix: number): number {
  const groups = SEP_STYLES[clampInt(sepStyle, 0, 4)][0] ? Math.floor((digits - 1) / 3) : 0;
  return digits + groups + (decimals > 0 ? decimals + 1 : 0) + affix;
}

/** The most integer digits that fit `maxLength` (0: none, not even "0"). */
function digitsThatFit(maxLength: number, decimals: number, sepStyle: number, affix: number): number {
  let digits = 0;
  while (digits < 400 && shownLength(digits + 1, decimals, sepStyle, affix) <= maxLength) digits++;
  return digits;
}

/** 10^digits - 0.5 * 10^-decimals (what rounds up to digits + 1 integer digits), times 10^shift, exactly. */
function roundingEdge(digits: number, decimals: number, shift: number): number {
  const edge = digits > 0 ? `${'9'.repeat(digits)}.${'9'.repeat(decimals)}5` : `0.${'0'.repeat(decimals)}5`;
  return Number(`${edge}e${shift}`);
}

export type FittingRange = { exclusiveMinimum: number; exclusiveMaximum: number } | 'nothing';

/**
 * The numbers a number field with this AFNumber / AFPercent format shows within `maxLength` code
 * points: an open interval (rounding included: with 2 decimals 99.995 prints "100.00", so a 6-place
 * field takes less than 99.995), or 'nothing' when not even 0 fits. Exactly the numbers whose text
 * formatNumberValue keeps within the limit. Undefined for other formats.
 */
export function fittingRange(format: FieldFormat | undefined, maxLength: number): FittingRange | undefined {
  if (format?.kind !== 'number' && format?.kind !== 'percent') return undefined;
  const decimals = clampInt(format.decimals, 0, 20);
  const affix = format.kind === 'percent' ? 1 : Array.from(format.currency).length;
  const sign = format.kind === 'number' && (format.negStyle === 2 || format.negStyle === 3) ? 2 : 1;
  const shift = format.kind === 'percent' ? -2 : 0;
  const positive = digitsThatFit(maxLength, decimals, format.sepStyle, affix);
  if (positive === 0) return 'nothing';
  const negative = digitsThatFit(maxLength - sign, decimals, format.sepStyle, affix);
  return {
    // a negative that rounds to zero prints unsigned: those always fit once 0 does
    exclusiveMinimum: -roundingEdge(negative, decimals, shift),
    exclusiveMaximum: roundingEdge(positive, decimals, shift),
  };
}

const localeNumberCache = memo<Intl.NumberFormat>();

/** A number field's value: the field's AFNumber/AFPercent format, else the locale's grouping and point. */
export function formatNumberValue(value: number, format: FieldFormat | undefined, locale: string): FormatResult {
  if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, reason: 'not a finite number' };
  if (format?.kind === 'number') return formatAfNumber(value, format);
  if (format?.kind === 'percent') return ok(formatAfPercent(value, format.decimals, format.sepStyle));
  const f = localeNumberCache.remember(locale, () => new Intl.NumberFormat(locale, { maximumFractionDigits: 20 }));
  return ok(pdfSafe(f.format(String(value === 0 ? 0 : value) as `${number}`)));
}

// ---- text masks --------------------------------------------------------------------------------

/** AFSpecial_Format(psf): 0 zip "99999", 1 zip+4 "99999-9999", 2 phone, 3 SSN "999-99-9999". */
export function formatSpecial(input: string, psf: number): FormatResult {
  // Only digits and the usual separators; anything else (letters, "+33 ...") is not this format.
  if (!/^[\d\s().\-/]*$/.test(input)) return { ok: false, reason: 'it contains characters other than digits' };
  const d = input.replace(/\D/g, '');
  switch (psf) {
    case 0:
      if (d.length === 5) return ok(d);
      break;
    case 1:
      if (d.length === 5) return ok(d);
      if (d.length === 9) return ok(`${d.slice(0, 5)}-${d.slice(5)}`);
      break;
    case 2:
      if (d.length === 10) return ok(`(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`);
      if (d.length === 7) return ok(`${d.slice(0, 3)}-${d.slice(3)}`);
      break;
    case 3:
      if (d.length === 9) return ok(`${d.slice(0, 3)}-${d.slice(3, 5)}-${d.slice(5)}`);
      break;
    default:
      return { ok: false, reason: `unknown special format ${psf}` };
  }
  const expected = ['5 digits', '5 or 9 digits', '7 or 10 digits', '9 digits'][psf];
  return { ok: false, reason: `it has ${d.length} digits, the format needs ${expected}` };
}

const MASK_TESTS: Record<string, (c: string) => boolean> = {
  '9': (c) => /^[0-9]$/.test(c),
  A: (c) => /^[A-Za-z]$/.test(c),
  O: (c) => /^[A-Za-z0-9]$/.test(c),
  X: () => true,
};
const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/**
 * AFSpecial_KeystrokeEx mask (9 digit, A letter, O letter or digit, X any character, others literal),
 * applied best effort: separators in the input are skipped or matched against the mask's literals,
 * and literals are inserted ("123456789" with "999-99-9999" -> "123-45-6789"). Input that does not
 * fill the mask exactly is reported, so the caller can keep it as given.
 */
export function applyMask(input: string, mask: string): FormatResult {
  const chars = Array.from(input);
  let i = 0;
  let out = '';
  for (const m of Array.from(mask)) {
    const test = MASK_TESTS[m];
    if (!test) {
      if (chars[i] === m) i++;
      out += m;
      continue;
    }
    while (i < chars.length && !test(chars[i]) && !isAlnum(chars[i])) i++; // skip separators
    if (i >= chars.length || !test(chars[i])) return { ok: false, reason: `it does not fit the mask "${mask}"` };
    out += chars[i++];
  }
  if (chars.slice(i).some(isAlnum)) return { ok: false, reason: `it is longer than the mask "${mask}"` };
  return ok(out);
}

/**
 * A text field's value under its format action, if it has one that applies to text: AFSpecial,
 * a KeystrokeEx mask, or AFTime (input "HH:MM[:SS]" or an ISO date-time). Other formats, or none,
 * leave the text as is. { ok: false } means the value does not fit the format (caller keeps it).
 */
export function formatTextValue(input: string, format: FieldFormat | undefined, ctx: FormatContext): FormatResult {
  switch (format?.kind) {
    case 'special':
      return formatSpecial(input, format.psf);
    case 'specialEx':
      return format.mask ? applyMask(input, format.mask) : ok(input);
    case 'time': {
      if (!isValidTimeZone(ctx.timezone)) return { ok: false, reason: `unknown time zone "${ctx.timezone}"` };
      const parsed = parseTimeInput(input, ctx.locale, ctx.timezone);
      if (!parsed.ok) return parsed;
      return ok(formatDatePattern(parsed.value, datePattern(format) ?? 'HH:MM', ctx.locale));
    }
    default:
      return ok(input);
  }
}
