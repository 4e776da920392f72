import { describe, expect, it } from 'vitest';
import { AF_DATE_FORMATS, parseFormatAction } from '../../src/pdf/analysis/format-action.js';

describe('parseFormatAction', () => {
  it('reads AFDate_FormatEx and AFDate_Format(n)', () => {
    expect(parseFormatAction('AFDate_FormatEx("mm/dd/yyyy");')).toEqual({ kind: 'date', pattern: 'mm/dd/yyyy' });
    expect(parseFormatAction("AFDate_FormatEx('dd-mmm-yy')")).toEqual({ kind: 'date', pattern: 'dd-mmm-yy' });
    expect(parseFormatAction('AFDate_FormatEx("m/d/yyyy HH:MM");')).toEqual({
      kind: 'date',
      pattern: 'm/d/yyyy HH:MM',
    });
    expect(parseFormatAction('AFDate_Format(2);')).toEqual({ kind: 'date', pattern: 'mm/dd/yy' });
    expect(parseFormatAction('AFDate_Format(0)')).toEqual({ kind: 'date', pattern: AF_DATE_FORMATS[0] });
    expect(parseFormatAction('AFDate_Format(99)')).toBeUndefined();
  });

  it('reads AFTime_Format(n) and AFTime_FormatEx', () => {
    expect(parseFormatAction('AFTime_Format(0);')).toEqual({ kind: 'time', pattern: 'HH:MM' });
    expect(parseFormatAction('AFTime_Format(2);')).toEqual({ kind: 'time', pattern: 'HH:MM:ss' });
    expect(parseFormatAction('AFTime_FormatEx("h:MM tt")')).toEqual({ kind: 'time', pattern: 'h:MM tt' });
  });

  it('reads AFNumber_Format with spacing and currency variants', () => {
    expect(parseFormatAction('AFNumber_Format(2,2,0,0,"",false )')).toEqual({
      kind: 'number',
      decimals: 2,
      sepStyle: 2,
      negStyle: 0,
      currency: '',
      currencyPrepend: false,
    });
    expect(parseFormatAction('AFNumber_Format(0, 0, 0, 0, "", true);')).toEqual({
      kind: 'number',
      decimals: 0,
      sepStyle: 0,
      negStyle: 0,
      currency: '',
      currencyPrepend: true,
    });
    expect(parseFormatAction('AFNumber_Format(2, 1, 2, 0, "\u20ac", false);')).toEqual({
      kind: 'number',
      decimals: 2,
      sepStyle: 1,
      negStyle: 2,
      currency: '€',
      currencyPrepend: false,
    });
    expect(parseFormatAction('AFNumber_Format(2, 0, 3, 0, "$ ", true);')).toMatchObject({
      currency: '$ ',
      negStyle: 3,
    });
  });

  it('reads AFPercent_Format and AFSpecial_*', () => {
    expect(parseFormatAction('AFPercent_Format(1, 0);')).toEqual({ kind: 'percent', decimals: 1, sepStyle: 0 });
    expect(parseFormatAction('AFSpecial_Format(0);')).toEqual({ kind: 'special', psf: 0 });
    expect(parseFormatAction('AFSpecial_Format(3);')).toEqual({ kind: 'special', psf: 3 });
    expect(parseFormatAction('AFSpecial_Format(7);')).toBeUndefined();
    expect(parseFormatAction('AFSpecial_KeystrokeEx("999-99-9999");')).toEqual({
      kind: 'specialEx',
      mask: '999-99-9999',
    });
  });

  it('finds the call inside a longer script and handles escapes', () => {
    expect(parseFormatAction('/* fmt */\nAFDate_FormatEx("yyyy\\/mm\\/dd");\nevent.rc = true;')).toEqual({
      kind: 'date',
      pattern: 'yyyy/mm/dd',
    });
  });

  it('reads every argument as a JavaScript string literal: \\u, \\x, octal and simple escapes', () => {
    // the script text as a PDF holds it: the backslashes are in the JavaScript source
    const currency = (literal: string) =>
      (parseFormatAction(`AFNumber_Format(2, 0, 0, 0, ${literal}, true);`) as { currency?: string } | undefined)
        ?.currency;
    expect(currency(String.raw`"\u20ac "`)).toBe('€ ');
    expect(currency(String.raw`"\u00A3"`)).toBe('£');
    expect(currency(String.raw`'\xa3'`)).toBe('£');
    expect(currency(String.raw`"\243"`)).toBe('£');
    expect(currency(String.raw`"\u{1F4B6}"`)).toBe('💶');
    expect(currency(String.raw`"a\\b\"c\'d\n"`)).toBe('a\\b"c\'d\n');
    expect(currency(String.raw`"\0"`)).toBe('\0');
    expect(currency(String.raw`"\101\0619"`)).toBe('A19');
    expect(currency(String.raw`"\q"`)).toBe('q');
    // malformed escapes are syntax errors: the script does not run, so no format
    expect(currency(String.raw`"\u20"`)).toBeUndefined();
    expect(currency(String.raw`"\xZ1"`)).toBeUndefined();
    expect(parseFormatAction(String.raw`AFSpecial_KeystrokeEx("\u0039\u0039\x39-99")`)).toEqual({
      kind: 'specialEx',
      mask: '999-99',
    });
    expect(parseFormatAction(String.raw`AFDate_FormatEx('dd\u002emm\u002eyyyy')`)).toEqual({
      kind: 'date',
      pattern: 'dd.mm.yyyy',
    });
  });

  it('ignores custom scripts, keystroke-only number calls and garbage', () => {
    expect(parseFormatAction(undefined)).toBeUndefined();
    expect(parseFormatAction('')).toBeUndefined();
    expect(parseFormatAction('event.value = util.printd("mm/dd", new Date());')).toBeUndefined();
    expect(parseFormatAction('AFNumber_Keystroke(2, 0, 0, 0, "", true);')).toBeUndefined();
    expect(parseFormatAction('AFDate_FormatEx(someVariable)')).toBeUndefined();
    expect(parseFormatAction('AFDate_FormatEx("unterminated')).toBeUndefined();
    expect(parseFormatAction(`AFNumber_Format(${'1,'.repeat(10_000)}`)).toBeUndefined();
  });
});
