import { describe, expect, it } from 'vitest';
import {
  applyMask,
  formatDatePattern,
  formatDateValue,
  formatNumberValue,
  formatSpecial,
  formatTextValue,
} from '../../src/modules/render-data/format-value.js';
import {
  isSupportedLocale,
  isValidTimeZone,
  localeDateShape,
  parseDateInput,
} from '../../src/modules/render-data/date-parse.js';
import type { FieldFormat } from '../../src/pdf/types.js';

const paris = { locale: 'fr-FR', timezone: 'Europe/Paris' };
const us = { locale: 'en-US', timezone: 'America/New_York' };
const date = (pattern: string): FieldFormat => ({ kind: 'date', pattern });
const num = (
  decimals: number,
  sepStyle: number,
  negStyle: number,
  currency: string,
  currencyPrepend: boolean,
): FieldFormat => ({
  kind: 'number',
  decimals,
  sepStyle,
  negStyle,
  currency,
  currencyPrepend,
});
const text = (r: { ok: boolean; text?: string }) => (r.ok ? r.text : `INVALID`);

describe('formatDateValue: reading input', () => {
  it('formats an ISO date as the fr-FR short date 05/03/2024', () => {
    expect(text(formatDateValue('2024-03-05', undefined, paris))).toBe('05/03/2024');
  });
  it('reads the fr-FR short date 05/03/2024 as 5 March', () => {
    expect(text(formatDateValue('05/03/2024', date('yyyy-mm-dd'), paris))).toBe('2024-03-05');
  });
  it('reads the en-US short date 3/5/2024 as March 5', () => {
    expect(text(formatDateValue('3/5/2024', date('yyyy-mm-dd'), us))).toBe('2024-03-05');
  });
  it('reads the de-DE short date 05.03.2024', () => {
    expect(
      text(formatDateValue('05.03.2024', date('yyyy-mm-dd'), { locale: 'de-DE', timezone: 'Europe/Berlin' })),
    ).toBe('2024-03-05');
  });
  it('reads a two-digit year 24 as 2024 and 75 as 1975 (Acrobat pivot)', () => {
    expect(text(formatDateValue('05/03/24', date('yyyy'), paris))).toBe('2024');
    expect(text(formatDateValue('05/03/75', date('yyyy'), paris))).toBe('1975');
  });
  it('reads the ja-JP short date 2024/03/05 in year-month-day order', () => {
    expect(text(formatDateValue('2024/03/05', date('dd.mm.yyyy'), { locale: 'ja-JP', timezone: 'Asia/Tokyo' }))).toBe(
      '05.03.2024',
    );
  });
  it('moves 2024-12-31T23:30:00Z to 1 January 2025 in Europe/Paris', () => {
    expect(text(formatDateValue('2024-12-31T23:30:00Z', undefined, paris))).toBe('01/01/2025');
  });
  it('keeps 2024-12-31T23:30:00Z on 31 December in UTC', () => {
    expect(text(formatDateValue('2024-12-31T23:30:00Z', undefined, { locale: 'fr-FR', timezone: 'UTC' }))).toBe(
      '31/12/2024',
    );
  });
  it('moves 2024-03-05T10:00:00+02:00 to 09:00 in Paris (winter time)', () => {
    expect(text(formatDateValue('2024-03-05T10:00:00+02:00', date('dd/mm/yyyy HH:MM'), paris))).toBe(
      '05/03/2024 09:00',
    );
  });
  it('applies summer time: 2024-07-01T10:00:00Z is 12:00 in Paris', () => {
    expect(text(formatDateValue('2024-07-01T10:00:00Z', date('HH:MM'), paris))).toBe('12:00');
  });
  it('moves 2024-03-05T01:00:00Z back to 4 March in America/New_York', () => {
    expect(text(formatDateValue('2024-03-05T01:00:00Z', date('m/d/yyyy'), us))).toBe('3/4/2024');
  });
  it('takes a date-time without offset as wall-clock time in the render zone', () => {
    expect(text(formatDateValue('2024-03-05T23:30', date('dd/mm/yyyy HH:MM'), paris))).toBe('05/03/2024 23:30');
  });
  it('never shifts a plain date, even in a zone west of UTC', () => {
    expect(text(formatDateValue('2024-03-05', date('d'), { locale: 'en-US', timezone: 'Pacific/Honolulu' }))).toBe('5');
  });
  it('accepts fractional seconds and a compact offset (+0530)', () => {
    expect(
      text(
        formatDateValue('2024-03-05T00:00:00.123+0530', date('yyyy-mm-dd HH:MM'), { locale: 'en', timezone: 'UTC' }),
      ),
    ).toBe('2024-03-04 18:30');
  });
  it('accepts 29 February in a leap year', () => {
    expect(formatDateValue('2024-02-29', undefined, paris).ok).toBe(true);
  });
  it('reports 2024-02-30 as invalid', () => {
    expect(formatDateValue('2024-02-30', undefined, paris)).toEqual({ ok: false, reason: 'no such date or time' });
  });
  it('reports 29 February 2023 as invalid', () => {
    expect(formatDateValue('29/02/2023', undefined, paris).ok).toBe(false);
  });
  it('reports month 13 in a locale short date as invalid', () => {
    expect(formatDateValue('01/13/2024', undefined, paris).ok).toBe(false);
  });
  it('reports an en-US order date read in fr-FR with day 31 as month as invalid', () => {
    expect(formatDateValue('12/31/2024', undefined, paris).ok).toBe(false);
  });
  it('reports 25:00 as an invalid time', () => {
    expect(formatDateValue('2024-03-05T25:00:00Z', undefined, paris).ok).toBe(false);
  });
  it('reports garbage, an empty string and a 3-digit year as invalid', () => {
    for (const s of ['garbage', '', '   ', '05/03/202', '2024-3-5x', 'NaN'])
      expect(formatDateValue(s, undefined, paris).ok).toBe(false);
  });
  it('reports a 10 MB string as invalid without scanning it', () => {
    expect(formatDateValue('1'.repeat(10_000_000), undefined, paris).ok).toBe(false);
  });
  it('reports an unknown time zone instead of throwing', () => {
    expect(formatDateValue('2024-03-05', undefined, { locale: 'fr-FR', timezone: 'Mars/Olympus' })).toEqual({
      ok: false,
      reason: 'unknown time zone "Mars/Olympus"',
    });
  });
});

describe('formatDateValue: output', () => {
  it('writes the en-US short date with a four-digit year: 3/5/2024', () => {
    expect(text(formatDateValue('2024-03-05', undefined, us))).toBe('3/5/2024');
  });
  it('writes the de-DE short date with a four-digit year: 05.03.2024', () => {
    expect(text(formatDateValue('2024-03-05', undefined, { locale: 'de-DE', timezone: 'UTC' }))).toBe('05.03.2024');
  });
  it('formats with the pattern "mm/dd/yyyy"', () => {
    expect(text(formatDateValue('2024-03-05', date('mm/dd/yyyy'), paris))).toBe('03/05/2024');
  });
  it('formats with the pattern "dd.mm.yyyy"', () => {
    expect(text(formatDateValue('2024-03-05', date('dd.mm.yyyy'), paris))).toBe('05.03.2024');
  });
  it('formats with the pattern "d-mmm-yy" in English as 5-Mar-24', () => {
    expect(text(formatDateValue('2024-03-05', date('d-mmm-yy'), us))).toBe('5-Mar-24');
  });
  it('formats with the pattern "yyyy-mm-dd"', () => {
    expect(text(formatDateValue('05/03/2024', date('yyyy-mm-dd'), paris))).toBe('2024-03-05');
  });
  it('falls back to the locale short date when the pattern is blank', () => {
    expect(text(formatDateValue('2024-03-05', date(' '), paris))).toBe('05/03/2024');
  });
});

describe('formatDatePattern tokens', () => {
  const v = { year: 2024, month: 9, day: 5, hour: 14, minute: 7, second: 3 };
  it('writes month and weekday names in the render locale (French)', () => {
    expect(formatDatePattern(v, 'dddd d mmmm yyyy', 'fr-FR')).toBe('jeudi 5 septembre 2024');
  });
  it("uses Acrobat's three-letter English abbreviations, Sep not en-GB Sept", () => {
    expect(formatDatePattern(v, 'ddd d mmm', 'en-GB')).toBe('Thu 5 Sep');
  });
  it('writes full English names for mmmm and dddd', () => {
    expect(formatDatePattern(v, 'dddd, mmmm d, yyyy', 'en-US')).toBe('Thursday, September 5, 2024');
  });
  it('writes the month name in its in-date (genitive) form in Polish', () => {
    expect(formatDatePattern(v, 'd mmmm', 'pl-PL')).toBe('5 września');
  });
  it('writes 24-hour, 12-hour, minutes, seconds and am/pm tokens', () => {
    expect(formatDatePattern(v, 'H HH h hh M MM s ss t tt', 'en-US')).toBe('14 14 2 02 7 07 3 03 p pm');
  });
  it('writes midnight as 12 am in 12-hour tokens', () => {
    expect(formatDatePattern({ ...v, hour: 0 }, 'h:MM tt', 'en-US')).toBe('12:07 am');
  });
  it('writes d and m without padding, dd and mm padded', () => {
    expect(formatDatePattern({ ...v, month: 3 }, 'd/m dd/mm', 'en')).toBe('5/3 05/03');
  });
  it('prints a backslash-escaped token letter literally', () => {
    expect(formatDatePattern(v, '\\d\\a\\y d', 'en')).toBe('day 5');
  });
  it('keeps unknown letters literal and reads "yyy" as yy + y', () => {
    expect(formatDatePattern(v, 'yyy Q', 'en')).toBe('24y Q');
  });
});

describe('formatNumberValue with AFNumber_Format', () => {
  it("formats 1234.5 as 1.234,50 € with AFNumber_Format(2,2,0,0,' €',false)", () => {
    expect(text(formatNumberValue(1234.5, num(2, 2, 0, ' €', false), 'en-US'))).toBe('1.234,50 €');
  });
  it('formats 1234.56 as 1,234.56 with sepStyle 0', () => {
    expect(text(formatNumberValue(1234.56, num(2, 0, 0, '', false), 'fr-FR'))).toBe('1,234.56');
  });
  it('formats 1234.56 as 1234.56 with sepStyle 1', () => {
    expect(text(formatNumberValue(1234.56, num(2, 1, 0, '', false), 'fr-FR'))).toBe('1234.56');
  });
  it('formats 1234.56 as 1234,56 with sepStyle 3', () => {
    expect(text(formatNumberValue(1234.56, num(2, 3, 0, '', false), 'fr-FR'))).toBe('1234,56');
  });
  it("formats 1234567.5 as 1'234'567.50 with sepStyle 4", () => {
    expect(text(formatNumberValue(1234567.5, num(2, 4, 0, '', false), 'fr-FR'))).toBe("1'234'567.50");
  });
  it('puts the minus before a prepended currency: -$1,234.50', () => {
    expect(text(formatNumberValue(-1234.5, num(2, 0, 0, '$', true), 'en-US'))).toBe('-$1,234.50');
  });
  it('puts the minus before the number with an appended currency: -1.234,50 €', () => {
    expect(text(formatNumberValue(-1234.5, num(2, 2, 0, ' €', false), 'fr-FR'))).toBe('-1.234,50 €');
  });
  it('wraps a negative in parentheses with negStyle 2: ($1,234.50)', () => {
    expect(text(formatNumberValue(-1234.5, num(2, 0, 2, '$', true), 'en-US'))).toBe('($1,234.50)');
  });
  it('keeps parentheses with negStyle 3, and colours the negative red', () => {
    expect(formatNumberValue(-5, num(0, 0, 3, '', false), 'en-US')).toEqual({ ok: true, text: '(5)', color: 'red' });
  });
  it('keeps the minus sign with negStyle 1 (a grey print or a copy of /V still reads it), in red', () => {
    expect(formatNumberValue(-5, num(0, 0, 1, '', false), 'en-US')).toEqual({ ok: true, text: '-5', color: 'red' });
  });
  it('colours non-negative numbers black with negStyle 1 and 3, as Acrobat sets textColor', () => {
    for (const style of [1, 3]) {
      expect(formatNumberValue(5, num(0, 0, style, '', false), 'en-US')).toMatchObject({ color: 'black' });
      expect(formatNumberValue(0, num(0, 0, style, '', false), 'en-US')).toMatchObject({ color: 'black' });
      // a negative that rounds to zero prints as zero: black like it
      expect(formatNumberValue(-0.001, num(2, 0, style, '', false), 'en-US')).toMatchObject({
        text: '0.00',
        color: 'black',
      });
    }
  });
  it('gives no colour with negStyle 0 and 2 (the /DA colour stays)', () => {
    for (const style of [0, 2]) {
      expect(formatNumberValue(-5, num(0, 0, style, '', false), 'en-US')).not.toHaveProperty('color');
      expect(formatNumberValue(5, num(0, 0, style, '', false), 'en-US')).not.toHaveProperty('color');
    }
  });
  it('rounds 1.005 to 1.01 (the decimal sent, not its binary value)', () => {
    expect(text(formatNumberValue(1.005, num(2, 0, 0, '', false), 'en-US'))).toBe('1.01');
  });
  it('rounds 2.5 to 3 with 0 decimals (half away from zero)', () => {
    expect(text(formatNumberValue(2.5, num(0, 0, 0, '', false), 'en-US'))).toBe('3');
  });
  it('writes -0.001 with 2 decimals as 0.00, without a sign', () => {
    expect(text(formatNumberValue(-0.001, num(2, 0, 2, '', false), 'en-US'))).toBe('0.00');
  });
  it('writes 1e21 in full digits, never in exponent notation', () => {
    expect(text(formatNumberValue(1e21, num(0, 1, 0, '', false), 'en-US'))).toBe('1000000000000000000000');
  });
  it('clamps hostile decimals (1e9) and sepStyle (-7) from a PDF to safe values', () => {
    expect(text(formatNumberValue(1.5, num(1e9, -7, 0, '', false), 'en-US'))).toBe(`1.5${'0'.repeat(19)}`);
  });
});

describe('formatNumberValue with AFPercent_Format and the locale', () => {
  it('formats 0.125 as 12.5% with AFPercent_Format(1,0)', () => {
    expect(text(formatNumberValue(0.125, { kind: 'percent', decimals: 1, sepStyle: 0 }, 'en-US'))).toBe('12.5%');
  });
  it('formats 0.07 as 7,00% with AFPercent_Format(2,2) (no float noise)', () => {
    expect(text(formatNumberValue(0.07, { kind: 'percent', decimals: 2, sepStyle: 2 }, 'en-US'))).toBe('7,00%');
  });
  it('formats -12.345 as -1,234.50% with AFPercent_Format(2,0)', () => {
    expect(text(formatNumberValue(-12.345, { kind: 'percent', decimals: 2, sepStyle: 0 }, 'en-US'))).toBe('-1,234.50%');
  });
  it('formats 1234567.891 in fr-FR with U+00A0 group separators instead of U+202F', () => {
    expect(text(formatNumberValue(1234567.891, undefined, 'fr-FR'))).toBe('1\u00a0234\u00a0567,891');
  });
  it('formats 1234.5 in en-US as 1,234.5 and keeps all digits sent', () => {
    expect(text(formatNumberValue(1234.5, undefined, 'en-US'))).toBe('1,234.5');
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: a long decimal sent as data, not meant as π
    expect(text(formatNumberValue(3.14159265358979, undefined, 'en-US'))).toBe('3.14159265358979');
  });
  it('writes a negative in sv-SE with an ASCII minus, not U+2212', () => {
    expect(text(formatNumberValue(-5, undefined, 'sv-SE'))).toBe('-5');
  });
  it('writes -0 as 0', () => {
    expect(text(formatNumberValue(-0, undefined, 'en-US'))).toBe('0');
  });
  it('reports NaN and Infinity as invalid', () => {
    expect(formatNumberValue(Number.NaN, undefined, 'en-US').ok).toBe(false);
    expect(formatNumberValue(Number.POSITIVE_INFINITY, num(2, 0, 0, '', false), 'en-US').ok).toBe(false);
  });
});

describe('AFNumber and AFPercent digits, against Intl.NumberFormat', () => {
  // The digits are worked out without Intl (its first use loads ICU's number data); Intl on the exact
  // decimal the value reads as is the truth they must match: half away from zero on the written digits.
  const intl = (value: number, decimals: number, shift: number) => {
    const [mantissa, exponent = '0'] = String(Math.abs(value)).split('e');
    const f = new Intl.NumberFormat('en-US', {
      useGrouping: false,
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    });
    return f.format(`${mantissa}e${Number(exponent) + shift}` as `${number}`);
  };
  const values: number[] = [
    0,
    -0,
    0.5,
    1.5,
    2.5,
    -2.5,
    1.005,
    1.015,
    0.125,
    0.0049999,
    0.005,
    999.995,
    9.995,
    99.5,
    0.95,
    9.5,
    999999.5,
    1e21,
    1.5e21,
    123456789012345680000,
    1.5e-7,
    5e-324,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    0.1 + 0.2,
    1 / 3,
    2 / 3,
    12.345,
    -12.345,
    0.07,
    1234567.891,
    4.35,
    1.45,
    8.675,
    0.045,
  ];
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 400; i++) {
    const magnitude = 10 ** Math.floor(random() * 24 - 12);
    const v = (random() - 0.3) * magnitude;
    // half of them cut to a few decimals, where halves and nines sit
    values.push(i % 2 ? v : Number(v.toFixed(Math.floor(random() * 6))));
  }
  it("gives Intl's digits for every decimals 0-20, plain and ×100", () => {
    let checked = 0;
    for (const value of values) {
      for (const decimals of [0, 1, 2, 3, 5, 8, 20]) {
        const plain = String(text(formatNumberValue(value, num(decimals, 1, 0, '', false), 'en-US'))).replace(/^-/, '');
        expect(plain, `${value} with ${decimals} decimals`).toBe(intl(value, decimals, 0));
        checked++;
        // past the double range Intl answers "∞" (checked below); the digits are written instead
        if (!Number.isFinite(value * 100)) continue;
        const percent = String(text(formatNumberValue(value, { kind: 'percent', decimals, sepStyle: 1 }, 'en-US')));
        expect(percent.replace(/^-|%$/g, ''), `${value} × 100 with ${decimals} decimals`).toBe(
          intl(value, decimals, 2),
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });
  it('writes the digits of a percent past the double range, where Intl says ∞', () => {
    expect(intl(Number.MAX_VALUE, 0, 2)).toBe('∞');
    const percent = text(formatNumberValue(Number.MAX_VALUE, { kind: 'percent', decimals: 1, sepStyle: 1 }, 'en-US'));
    expect(percent).toBe(`17976931348623157${'0'.repeat(294)}.0%`);
  });
});

describe('AFSpecial_Format and masks', () => {
  it('formats 5 digits as a ZIP code (psf 0)', () => {
    expect(text(formatSpecial(' 75001 ', 0))).toBe('75001');
  });
  it('formats 9 digits as ZIP+4 12345-6789 (psf 1)', () => {
    expect(text(formatSpecial('123456789', 1))).toBe('12345-6789');
  });
  it('formats 10 digits as (555) 123-4567 (psf 2)', () => {
    expect(text(formatSpecial('555.123.4567', 2))).toBe('(555) 123-4567');
  });
  it('formats 7 digits as 123-4567 (psf 2)', () => {
    expect(text(formatSpecial('1234567', 2))).toBe('123-4567');
  });
  it('formats an SSN as 123-45-6789 (psf 3)', () => {
    expect(text(formatSpecial('123 45 6789', 3))).toBe('123-45-6789');
  });
  it('reports a phone number with 11 digits as not fitting, rather than dropping a digit', () => {
    expect(formatSpecial('+1 555 123 4567', 2).ok).toBe(false);
  });
  it('reports letters in a ZIP code as not fitting', () => {
    expect(formatSpecial('SW1A 1AA', 0).ok).toBe(false);
  });
  it('applies the mask "AA-9999" to "ab1234" as ab-1234', () => {
    expect(text(applyMask('ab1234', 'AA-9999'))).toBe('ab-1234');
  });
  it('matches the mask literals the input already has', () => {
    expect(text(applyMask('AB-1234', 'AA-9999'))).toBe('AB-1234');
  });
  it('accepts letters or digits for O and anything for X', () => {
    expect(text(applyMask('a1#', 'OOX'))).toBe('a1#');
  });
  it('reports input too short or too long for the mask', () => {
    expect(applyMask('123', '9999').ok).toBe(false);
    expect(applyMask('12345', '9999').ok).toBe(false);
  });
  it('formats a text field with AFTime "h:MM tt" from 14:30 as 2:30 pm', () => {
    expect(text(formatTextValue('14:30', { kind: 'time', pattern: 'h:MM tt' }, paris))).toBe('2:30 pm');
  });
  it('reads 12-hour input 12:05 am and 2:30 PM for AFTime "HH:MM"', () => {
    expect(text(formatTextValue('12:05 am', { kind: 'time', pattern: 'HH:MM' }, paris))).toBe('00:05');
    expect(text(formatTextValue('2:30 PM', { kind: 'time', pattern: 'HH:MM' }, paris))).toBe('14:30');
  });
  it('reports 24:00 and 13:00 pm as not fitting an AFTime format', () => {
    expect(formatTextValue('24:00', { kind: 'time', pattern: 'HH:MM' }, paris).ok).toBe(false);
    expect(formatTextValue('13:00 pm', { kind: 'time', pattern: 'HH:MM' }, paris).ok).toBe(false);
  });
  it('formats a text field with AFTime from an ISO date-time converted to the zone', () => {
    expect(text(formatTextValue('2024-03-05T13:05:00Z', { kind: 'time', pattern: 'HH:MM' }, paris))).toBe('14:05');
  });
  it('leaves text unchanged when the field has no text format', () => {
    expect(formatTextValue('anything', undefined, paris)).toEqual({ ok: true, text: 'anything' });
  });
});

describe('locale and zone helpers', () => {
  it('accepts fr-FR, en and de-CH and rejects xx-XX, en_US and garbage', () => {
    expect(['fr-FR', 'en', 'de-CH'].map(isSupportedLocale)).toEqual([true, true, true]);
    expect(['xx-XX', 'en_US', 'not a locale', ''].map(isSupportedLocale)).toEqual([false, false, false, false]);
  });
  it('accepts Europe/Paris and UTC and rejects unknown zone names', () => {
    expect(['Europe/Paris', 'UTC'].map(isValidTimeZone)).toEqual([true, true]);
    expect(['Mars/Olympus', 'Europe/Atlantis', ''].map(isValidTimeZone)).toEqual([false, false, false]);
  });
  it('describes the fr-FR, en-US and de-DE short dates as dd/mm/yyyy, mm/dd/yyyy, dd.mm.yyyy', () => {
    expect(['fr-FR', 'en-US', 'de-DE'].map((l) => localeDateShape(l).hint)).toEqual([
      'dd/mm/yyyy',
      'mm/dd/yyyy',
      'dd.mm.yyyy',
    ]);
  });
  it('marks a plain date as having no time and a date-time as having one', () => {
    const plain = parseDateInput('2024-03-05', 'fr-FR', 'UTC');
    const timed = parseDateInput('2024-03-05T10:00Z', 'fr-FR', 'UTC');
    expect(plain.ok && plain.hasTime).toBe(false);
    expect(timed.ok && timed.hasTime).toBe(true);
  });
});
