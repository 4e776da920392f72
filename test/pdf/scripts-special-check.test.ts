// AFSpecial_Keystroke (zip, zip+4, phone, SSN) and AFSpecial_KeystrokeEx (masks) checked without a script session when it accepts the value
// (special-check.ts): the same verdicts as pdf.js's own check in the sandbox, value by value, and no
// session at all for a render whose values it all accepts.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { specialAccepts, specialKeystroke } from '../../src/pdf/scripts/special-check.js';
import { buildCalcForm, fillValues } from '../helpers/calc-forms.js';

const sandbox = new ScriptSandbox();
const cache = new TemplateCache({ maxEntries: 8, maxBytes: 64 * 1024 * 1024, sandbox });
afterAll(() => sandbox.close());

const PSFS = [0, 1, 2, 3];
/** AFSpecial_KeystrokeEx masks as forms write them (digits, letters, either, anything, literals). */
const MASKS = ['99999', '999-99-9999', '(999) 999-9999', 'AAA-999', 'OOOO-OOOO', 'XX-99', '9999999999'];
const CHECKS: (number | string)[] = [...PSFS, ...MASKS];
const call = (c: number | string) =>
  typeof c === 'number' ? `AFSpecial_Keystroke(${c});` : `AFSpecial_KeystrokeEx("${c}");`;
/** Boundaries of each mask: lengths, separators, letters, other scripts' digits, spaces. */
const VALUES = [
  '12345',
  '1234',
  '123456',
  '12345-6789',
  '123456789',
  '12345 6789',
  '1234-56789',
  '(123) 456-7890',
  '1234567890',
  '123-4567',
  '1234567',
  '12345678',
  '(123)456-7890',
  '123-456-7890',
  '123-45-6789',
  '12-345-6789',
  'abcde',
  '١٢٣٤٥٦٧٨٩٠',
  '１２３４５',
  ' 12345',
  '12345 ',
  '(12) 3456-789',
  'x',
  'ABC-123',
  'abc-1234',
  'A1B2-C3D4',
  'A1B2C3D4',
  'ab-12',
  'é!-00',
  'AB-1',
];

describe('AFSpecial_Keystroke without a session', () => {
  it('recognises the call alone, with a literal format number', () => {
    expect(specialKeystroke('AFSpecial_Keystroke(2);')).toBe(2);
    expect(specialKeystroke(' AFSpecial_Keystroke( 0 ) ')).toBe(0);
    expect(specialKeystroke('AFSpecial_Keystroke(4);')).toBeUndefined();
    expect(specialKeystroke('AFSpecial_Keystroke(1); // and more')).toBeUndefined();
    expect(specialKeystroke('AFSpecial_KeystrokeEx("999-99");')).toBe('999-99');
    expect(specialKeystroke('AFSpecial_KeystrokeEx("9\\"9");')).toBeUndefined();
    expect(specialKeystroke('AFSpecial_KeystrokeEx(mask);')).toBeUndefined();
    expect(specialKeystroke('AFSpecial_KeystrokeEx("99\n99");')).toBeUndefined(); // a syntax error: the sandbox says so
    expect(specialKeystroke(undefined)).toBeUndefined();
  });

  it("gives pdf.js's own verdict on every value, for the four formats and for masks", async () => {
    // z<i>: the check alone (answered here when it accepts); s<i>: the same check followed by a comment,
    // which is not the call alone, so pdf.js's check runs in the sandbox for every value.
    const form = await buildCalcForm({
      fields: CHECKS.flatMap((c, i) => [
        { name: `z${i}`, K: call(c) },
        { name: `s${i}`, K: `${call(c)} // through the sandbox` },
      ]),
    });
    const verdicts = { accepted: 0, refused: 0 };
    for (const value of VALUES) {
      const values = Object.fromEntries(
        CHECKS.flatMap((_, i) => [
          [`z${i}`, value],
          [`s${i}`, value],
        ]),
      );
      const r = await fillPdf(
        form.bytes,
        form.analysis,
        { values: fillValues(values), flatten: false },
        undefined,
        cache,
      );
      const refused = new Set((r.scriptRejections ?? []).map((x) => x.field));
      CHECKS.forEach((check, i) => {
        const sandboxVerdict = { value, check, accepted: !refused.has(`s${i}`) };
        expect({ value, check, accepted: !refused.has(`z${i}`) }).toEqual(sandboxVerdict);
        expect({ value, check, accepted: specialAccepts(value, check) }).toEqual(sandboxVerdict);
        verdicts[sandboxVerdict.accepted ? 'accepted' : 'refused']++;
      });
    }
    // both answers are well represented: the comparison is not of one verdict
    expect(verdicts.accepted).toBeGreaterThanOrEqual(20);
    expect(verdicts.refused).toBeGreaterThan(100);
  });

  it('runs no session when the check accepts every value, and one when it refuses a value', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'zip', K: 'AFSpecial_Keystroke(1);', F: 'AFSpecial_Format(1);' },
        { name: 'ssn', K: 'AFSpecial_Keystroke(3);', F: 'AFSpecial_Format(3);' },
        { name: 'amount', K: 'AFNumber_Keystroke(2, 0, 0, 0, "", true);', F: 'AFNumber_Format(2, 0, 0, 0, "", true);' },
      ],
    });
    const runs = vi.spyOn(sandbox, 'run');
    const render = (zip: string) =>
      fillPdf(
        form.bytes,
        form.analysis,
        { values: fillValues({ zip, ssn: '123-45-6789', amount: '12.50' }), flatten: true },
        undefined,
        cache,
      );
    const ok = await render('12345-6789');
    expect(runs).not.toHaveBeenCalled();
    expect(ok.scriptRejections ?? []).toEqual([]);
    const refused = await render('12345');
    expect(runs).toHaveBeenCalledTimes(1);
    expect((refused.scriptRejections ?? []).map((x) => [x.field, x.value])).toEqual([['zip', '12345']]);
    runs.mockRestore();
  });
});
