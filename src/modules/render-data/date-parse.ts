// Reading date inputs for render data: ISO 8601 (extended format) or the locale's short date, and
// moving a date-time into the render's time zone. Pure; only Intl (Node ships full ICU).
import { Lru } from '../../lib/lru.js';

/** A calendar date and wall-clock time, with no zone attached. month is 1-12. */
export interface CivilDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export type DateParseResult = { ok: true; value: CivilDateTime; hasTime: boolean } | { ok: false; reason: string };

/** Longer inputs are never dates; checked before any regex runs on hostile strings. */
const MAX_DATE_INPUT = 64;
/** Year range we accept and print: four-digit years, as ISO 8601 without expansion. */
const MIN_YEAR = 1;
const MAX_YEAR = 9999;

// yyyy-mm-dd, optionally T/space + HH:MM[:SS[.fff]] + Z / ±HH[:MM]
const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([aApP])\.?[mM]\.?)?$/;

/** Intl objects kept per memo: constructors are slow, and a hostile caller could vary locales forever. */
const MEMO_ENTRIES = 64;

/**
 * A memo of a pure function of its key (Intl data, which never changes in a process). Module-level on
 * purpose: it holds no state a caller could observe (see docs/decisions.md, "Code health moves").
 */
export function memo<T>(): Lru<string, T> {
  return new Lru<string, T>(MEMO_ENTRIES);
}

const zoneCache = memo<Intl.DateTimeFormat | null>();
function offsetFormatter(timeZone: string): Intl.DateTimeFormat | null {
  return zoneCache.remember(timeZone, () => {
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    } catch {
      return null; // RangeError: unknown time zone
    }
  });
}

/** True for an IANA zone name Intl knows (case-insensitive, as Intl is), e.g. "Europe/Paris", "UTC". */
export function isValidTimeZone(timeZone: string): boolean {
  return typeof timeZone === 'string' && timeZone.length <= 100 && offsetFormatter(timeZone) !== null;
}

const localeCache = memo<boolean>();
/** True for a well-formed BCP 47 tag whose language ICU has data for ("fr-FR", "en", not "xx-XX"). */
export function isSupportedLocale(locale: string): boolean {
  if (typeof locale !== 'string' || locale.length === 0 || locale.length > 100) return false;
  // memoised: otherwise two ICU lookups on every render request
  return localeCache.remember(locale, () => {
    try {
      const [canonical] = Intl.getCanonicalLocales(locale);
      return canonical !== undefined && Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 1;
    } catch {
      return false; // RangeError: not a well-formed tag
    }
  });
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

function isValidCivil(v: CivilDateTime): boolean {
  return (
    v.year >= MIN_YEAR &&
    v.year <= MAX_YEAR &&
    v.month >= 1 &&
    v.month <= 12 &&
    v.day >= 1 &&
    v.day <= daysInMonth(v.year, v.month) &&
    v.hour <= 23 &&
    v.minute <= 59 &&
    v.second <= 59
  );
}

/** Milliseconds since the epoch of a civil date-time read as UTC (years below 100 included). */
export function civilToEpoch(v: CivilDateTime): number {
  const d = new Date(0);
  d.setUTCFullYear(v.year, v.month - 1, v.day);
  d.setUTCHours(v.hour, v.minute, v.second, 0);
  return d.getTime();
}

function epochToCivil(ms: number): CivilDateTime {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** The zone's UTC offset at an instant, in ms ("GMT+05:30", "GMT-03:00", "GMT+00:09:21", "GMT"). */
function zoneOffsetMs(timeZone: string, epochMs: number): number | null {
  const formatter = offsetFormatter(timeZone);
  if (!formatter) return null;
  const name = formatter.formatToParts(new Date(epochMs)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name);
  if (!m) return null;
  if (!m[1]) return 0;
  const ms = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0)) * 1000;
  return m[1] === '-' ? -ms : ms;
}

/** The wall-clock date-time of an instant in a zone; null for an unknown zone or a year out of range. */
function instantInZone(epochMs: number, timeZone: string): CivilDateTime | null {
  const offset = zoneOffsetMs(timeZone, epochMs);
  if (offset === null) return null;
  const civil = epochToCivil(epochMs + offset);
  return civil.year >= MIN_YEAR && civil.year <= MAX_YEAR ? civil : null;
}

export interface LocaleDateShape {
  /** order of the numeric parts in the locale's short date */
  order: ('day' | 'month' | 'year')[];
  /** e.g. "dd/mm/yyyy" (fr-FR), "mm/dd/yyyy" (en-US), "dd.mm.yyyy" (de-DE), "yyyy/mm/dd" (ja-JP) */
  hint: string;
}

const shapeCache = memo<LocaleDateShape>();
export function localeDateShape(locale: string): LocaleDateShape {
  return shapeCache.remember(locale, () => {
    const parts = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeZone: 'UTC' }).formatToParts(
      Date.UTC(2024, 2, 5),
    );
    const order: LocaleDateShape['order'] = [];
    let hint = '';
    for (const p of parts) {
      if (p.type === 'day' || p.type === 'month' || p.type === 'year') {
        order.push(p.type);
        hint += p.type === 'day' ? 'dd' : p.type === 'month' ? 'mm' : 'yyyy';
      } else if (p.type === 'literal') {
        hint += p.value.replace(/[\u200e\u200f\u061c]/g, '');
      }
    }
    // A locale whose short date is not three numeric parts: fall back to ISO order for reading.
    if (order.length !== 3) return { order: ['year', 'month', 'day'], hint: 'yyyy-mm-dd' };
    return { order, hint: hint.trim() };
  });
}

function parseIso(m: RegExpExecArray, timeZone: string): DateParseResult {
  const value: CivilDateTime = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  };
  if (!isValidCivil(value)) return { ok: false, reason: 'no such date or time' };
  const hasTime = m[4] !== undefined;
  const zone = m[7];
  // A date-time without an offset is already wall-clock time in the render's zone: nothing to convert.
  if (!zone) return { ok: true, value, hasTime };
  let offsetMin = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || 0);
    if (hours > 23 || minutes > 59) return { ok: false, reason: 'invalid UTC offset' };
    offsetMin = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const local = instantInZone(civilToEpoch(value) - offsetMin * 60_000, timeZone);
  if (!local) return { ok: false, reason: 'date out of range' };
  return { ok: true, value: local, hasTime };
}

// Three groups of ASCII digits separated by . / - or spaces ("05/03/2024", "3/5/24", "2024. 3. 5.").
function parseLocaleShort(input: string, locale: string): DateParseResult {
  const groups = input.replace(/\.$/, '').split(/\s*[./-]\s*|\s+/);
  if (groups.length !== 3 || !groups.every((g) => /^\d{1,4}$/.test(g))) {
    return { ok: false, reason: 'not a date' };
  }
  const { order } = localeDateShape(locale);
  const parts: Record<string, string> = {};
  order.forEach((type, i) => {
    parts[type] = groups[i];
  });
  const y = parts.year;
  if (y.length !== 4 && y.length !== 2) return { ok: false, reason: 'year must have 2 or 4 digits' };
  if (parts.day.length > 2 || parts.month.length > 2) return { ok: false, reason: 'not a date' };
  let year = Number(y);
  // Two-digit years pivot as in Acrobat's date parsing: 00-49 -> 2000s, 50-99 -> 1900s.
  if (y.length === 2) year += year < 50 ? 2000 : 1900;
  const value: CivilDateTime = {
    year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: 0,
    minute: 0,
    second: 0,
  };
  return isValidCivil(value) ? { ok: true, value, hasTime: false } : { ok: false, reason: 'no such date' };
}

/**
 * Reads a render date: ISO 8601 extended format (`2024-03-05`, `2024-03-05T23:30:00Z`,
 * `2024-03-05T10:00:00+02:00`) or the locale's short date with ASCII digits (fr-FR `05/03/2024`,
 * en-US `3/5/2024`, de-DE `05.03.2024`; 2-digit years accepted). A date-time with `Z` or an offset is
 * converted to `timeZone`; one without is taken as wall-clock time there; a plain date is never shifted.
 */
export function parseDateInput(input: string, locale: string, timeZone: string): DateParseResult {
  const s = input.trim();
  if (s.length === 0 || s.length > MAX_DATE_INPUT) return { ok: false, reason: 'not a date' };
  const iso = ISO_RE.exec(s);
  if (iso) return parseIso(iso, timeZone);
  return parseLocaleShort(s, locale);
}

/** Reads a time for AFTime fields: `HH:MM[:SS]`, `h:MM[:SS] am|pm`, or a date-time parseDateInput accepts. */
export function parseTimeInput(input: string, locale: string, timeZone: string): DateParseResult {
  const s = input.trim();
  const m = TIME_RE.exec(s);
  if (m) {
    let hour = Number(m[1]);
    if (m[4]) {
      if (hour < 1 || hour > 12) return { ok: false, reason: 'no such time' };
      hour = (hour % 12) + (/p/i.test(m[4]) ? 12 : 0);
    }
    const value: CivilDateTime = {
      year: 2000,
      month: 1,
      day: 1,
      hour,
      minute: Number(m[2]),
      second: Number(m[3] ?? 0),
    };
    return isValidCivil(value) ? { ok: true, value, hasTime: true } : { ok: false, reason: 'no such time' };
  }
  const parsed = parseDateInput(s, locale, timeZone);
  return parsed.ok && !parsed.hasTime ? { ok: false, reason: 'no time of day' } : parsed;
}
