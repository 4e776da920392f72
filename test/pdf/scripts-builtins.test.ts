// The form script runtime on forms built for it (test/helpers/calc-forms.ts): Acrobat's built-ins that real
// forms use, run by pdf.js's scripting layer in the QuickJS sandbox at render time. Each case reads the
// computed /V back from the unflattened output and the drawn text from the flattened one (pdftotext).
import { afterAll, describe, expect, it } from 'vitest';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { buildCalcForm, renderCalc } from '../helpers/calc-forms.js';
import { hasTool } from '../helpers/pdf-tools.js';

const sandbox = new ScriptSandbox();
const cache = new TemplateCache({ maxEntries: 50, maxBytes: 256 * 1024 * 1024, sandbox });
afterAll(() => sandbox.close());

const NUM = (dec = 2, sep = 0) => ({
  K: `AFNumber_Keystroke(${dec}, ${sep}, 0, 0, "", true);`,
  F: `AFNumber_Format(${dec}, ${sep}, 0, 0, "", true);`,
});
const simple = (fn: string, ...names: string[]) =>
  `AFSimple_Calculate("${fn}", new Array(${names.map((n) => `"${n}"`).join(', ')}));`;

describe.skipIf(!hasTool('pdftotext'))('form scripts at render time: built-ins', () => {
  it.each([
    ['SUM', '351.50', '351.5'],
    ['PRD', '45,000.00', '45000'],
    ['AVG', '117.17', '117.166667'], // pdf.js's AVG keeps six decimals
    ['MIN', '1.50', '1.5'],
    ['MAX', '200.00', '200'],
  ])('AFSimple_Calculate %s over three lines, drawn with AFNumber_Format', async (fn, shown, value) => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a', ...NUM() },
        { name: 'b', ...NUM() },
        { name: 'c', ...NUM() },
        { name: 'total', value: '9', readOnly: true, C: simple(fn, 'a', 'b', 'c'), F: NUM().F },
      ],
    });
    const r = await renderCalc(cache, form, { a: '150.00', b: '200.00', c: '1.50' });
    expect(r.result.scriptWarnings).toEqual([]);
    expect(r.v.total).toBe(value);
    expect(r.text).toContain(shown);
    expect(r.text).not.toMatch(/\b9\b/); // the stale total saved in the template is gone
  });

  it('chained calculations follow /CO, not field order', async () => {
    // "double" comes first in field order but must run after "sum", which it reads.
    const form = await buildCalcForm({
      fields: [
        { name: 'double', C: 'event.value = 2 * this.getField("sum").value;', F: NUM(0).F },
        { name: 'a' },
        { name: 'b' },
        { name: 'sum', value: '1', C: simple('SUM', 'a', 'b') },
      ],
      order: ['sum', 'double'],
    });
    const r = await renderCalc(cache, form, { a: '20', b: '22' });
    expect(r.v.sum).toBe('42');
    expect(r.v.double).toBe('84');
    // the same form with the order reversed: "double" reads the saved sum (1), as Acrobat would
    const reversed = await buildCalcForm({ ...formSpec(form), order: ['double', 'sum'] });
    const r2 = await renderCalc(cache, reversed, { a: '20', b: '22' });
    expect(r2.v.double).toBe('2');
    expect(r2.v.sum).toBe('42');
  });

  it('simplified field notation (BVCALC) and custom functions from document-level scripts', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'price' },
        { name: 'qty' },
        {
          name: 'net',
          C: '/** BVCALC price*qty EVCALC **/event.value=AFMakeNumber(getField("price").value)*AFMakeNumber(getField("qty").value)',
        },
        { name: 'gross', C: 'event.value = withVat(this.getField("net").value);', F: NUM(2).F },
      ],
      docScripts: { lib: 'var VAT = 0.17; function withVat(x) { return Math.round(x * (1 + VAT) * 100) / 100; }' },
    });
    const r = await renderCalc(cache, form, { price: '12.5', qty: '4' });
    expect(r.v.net).toBe('50');
    expect(r.v.gross).toBe('58.5');
    expect(r.text).toContain('58.50');
  });

  it('locale separators: "1.234,50" with AFNumber sepStyle 2 sums as 1234.5 and is drawn "2.469,00"', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a', ...NUM(2, 2) },
        { name: 'b', ...NUM(2, 2) },
        { name: 'total', readOnly: true, C: simple('SUM', 'a', 'b'), F: NUM(2, 2).F },
      ],
    });
    const r = await renderCalc(cache, form, { a: '1.234,50', b: '1.234,50' });
    expect(r.result.scriptRejections).toEqual([]);
    expect(r.v.total).toBe('2469');
    expect(r.text).toContain('2.469,00');
  });

  it('AFPercent, AFDate, AFTime and AFSpecial formats draw computed values; util.printf/printd/scand compute', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'part' },
        { name: 'whole' },
        {
          name: 'share',
          C: 'event.value = this.getField("part").value / this.getField("whole").value;',
          F: 'AFPercent_Format(1, 0);',
        },
        { name: 'born', K: 'AFDate_KeystrokeEx("dd.mm.yyyy");', F: 'AFDate_FormatEx("dd.mm.yyyy");' },
        {
          name: 'iso',
          C: 'var d = util.scand("dd.mm.yyyy", this.getField("born").value); event.value = d ? util.printd("yyyy-mm-dd", d) : "";',
        },
        {
          name: 'long',
          C: 'event.value = util.printd("mm/dd/yyyy", util.scand("dd.mm.yyyy", this.getField("born").value));',
          F: 'AFDate_FormatEx("mmmm d, yyyy");',
        },
        { name: 'at', C: 'event.value = "2:05 pm";', F: 'AFTime_Format(1);' },
        { name: 'phone', C: 'event.value = "5551234567";', F: 'AFSpecial_Format(2);' },
        { name: 'label', C: 'event.value = util.printf("%s owes %.2f", "Ann", 3.14159).toUpperCase();' },
      ],
    });
    const r = await renderCalc(cache, form, { part: '1', whole: '8', born: '03.02.2001' });
    expect(r.result.scriptWarnings).toEqual([]);
    expect(r.v.share).toBe('0.125');
    expect(r.text).toContain('12.5%');
    expect(r.v.iso).toBe('2001-02-03');
    expect(r.text).toContain('February 3, 2001');
    expect(r.text).toContain('2:05 pm');
    expect(r.text).toContain('(555) 123-4567');
    expect(r.v.label).toBe('ANN OWES 3.14');
  });

  it('field arrays: getField("row").getArray() sums the kids of a parent field', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'row.0' },
        { name: 'row.1' },
        { name: 'row.2' },
        {
          name: 'rows',
          C: 'var t = 0; var a = this.getField("row").getArray(); for (var i = 0; i < a.length; i++) t += Number(a[i].value); event.value = t + "/" + a.length;',
        },
      ],
    });
    const r = await renderCalc(cache, form, { 'row.0': '1', 'row.1': '2', 'row.2': '4' });
    expect(r.v.rows).toBe('7/3');
  });

  it('empty inputs and division by zero', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a', ...NUM() },
        { name: 'b', ...NUM() },
        { name: 'sum', C: simple('SUM', 'a', 'b'), F: NUM().F },
        { name: 'avg', C: simple('AVG', 'a', 'b'), F: NUM().F },
        {
          name: 'ratio',
          C: 'var b = AFMakeNumber(this.getField("b").value); event.value = b ? AFMakeNumber(this.getField("a").value) / b : "";',
          F: NUM().F,
        },
        { name: 'raw', C: 'event.value = this.getField("a").value / this.getField("b").value;' },
      ],
    });
    // (a render that sets no value at all runs no script: its output is the template as prepared)
    const empty = await renderCalc(cache, form, { a: { kind: 'clear' }, b: { kind: 'clear' } });
    expect(empty.v.sum).toBe('0');
    expect(empty.text).toContain('0.00');
    expect(empty.v.ratio).toBe('');
    const zero = await renderCalc(cache, form, { a: '5.00', b: '0.00' });
    expect(zero.v.sum).toBe('5');
    expect(zero.v.ratio).toBe('');
    // an unguarded division gives Infinity, which leaves the sandbox as null: the field stays empty
    expect(zero.v.raw).toBe('');
    expect(zero.result.scriptWarnings).toEqual([]);
  });

  it('keystroke and validate scripts refuse a value (event.rc = false) with the script message', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'age', K: NUM(0).K, V: 'AFRange_Validate(true, 0, true, 120);' },
        {
          name: 'code',
          V: 'if (event.value.length !== 4) { app.alert("four characters, please"); event.rc = false; }',
        },
        { name: 'qty', K: NUM(0).K },
        { name: 'twice', C: 'event.value = 2 * this.getField("age").value;' },
      ],
    });
    const r = await renderCalc(cache, form, { age: '150', code: 'ABCDE', qty: '12x' });
    const byField = Object.fromEntries((r.result.scriptRejections ?? []).map((x) => [x.field, x]));
    expect(Object.keys(byField).sort()).toEqual(['age', 'code', 'qty']);
    expect(byField.age.value).toBe('150');
    expect(byField.age.message).toMatch(/120/);
    expect(byField.code.message).toBe('four characters, please');
    // the refused value stays what the caller sent (strict mode turns the rejection into an error)
    expect(r.v.age).toBe('150');
    const ok = await renderCalc(cache, form, { age: '40', code: 'ABCD', qty: '12' });
    expect(ok.result.scriptRejections).toEqual([]);
    expect(ok.v.twice).toBe('80');
  });

  it('calculate: false runs no script and writes the caller value of a read-only calculated field', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a', ...NUM() },
        { name: 'total', value: '9', readOnly: true, C: simple('SUM', 'a'), F: NUM().F },
      ],
    });
    const off = await renderCalc(cache, form, { a: '5.00', total: '1,000.00' }, { calculate: false });
    expect(off.v.total).toBe('1,000.00');
    expect(off.result.scriptWarnings).toEqual([]);
    const on = await renderCalc(cache, form, { a: '5.00', total: '1,000.00' });
    expect(on.v.total).toBe('5');
  });

  it('a script that hides its field until it has lines (the Luxembourg pattern) toggles the Hidden flag', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a' },
        {
          name: 'total',
          C: simple('SUM', 'a'),
          V: 'event.target.hidden = this.getField("a").value == "";',
          F: NUM().F,
        },
      ],
    });
    expect((await renderCalc(cache, form, { a: '7' })).text).toContain('7.00');
    expect((await renderCalc(cache, form, { a: { kind: 'clear' } })).text).not.toContain('0.00');
  });
});

/** The spec a built form was made from is not kept: rebuild it from the form's own test above. */
function formSpec(_form: unknown) {
  return {
    fields: [
      { name: 'double', C: 'event.value = 2 * this.getField("sum").value;', F: NUM(0).F },
      { name: 'a' },
      { name: 'b' },
      { name: 'sum', value: '1', C: simple('SUM', 'a', 'b') },
    ],
  };
}

describe('when a render needs no script context', () => {
  /** The real sandbox, counting the sessions it is asked to run. */
  class CountingSandbox extends ScriptSandbox {
    sessions = 0;
    override run(...args: Parameters<ScriptSandbox['run']>) {
      this.sessions++;
      return super.run(...args);
    }
  }

  it("skips the sandbox for Acrobat's number and date keystroke checks alone, not for a range or a calculation", async () => {
    const counting = new CountingSandbox();
    const own = new TemplateCache({ maxEntries: 10, maxBytes: 64 * 1024 * 1024, sandbox: counting });
    try {
      const plain = await buildCalcForm({
        fields: [
          { name: 'qty', K: 'AFNumber_Keystroke(0, 0, 0, 0, "", true);' },
          { name: 'born', K: 'AFDate_KeystrokeEx("dd.mm.yyyy");' },
        ],
      });
      await renderCalc(own, plain, { qty: '12', born: '03.02.2001' });
      expect(counting.sessions).toBe(0);
      const ranged = await buildCalcForm({
        fields: [
          { name: 'age', K: 'AFNumber_Keystroke(0, 0, 0, 0, "", true);', V: 'AFRange_Validate(true, 0, true, 120);' },
        ],
      });
      const r = await renderCalc(own, ranged, { age: '150' });
      expect(counting.sessions).toBeGreaterThan(0);
      expect(r.result.scriptRejections?.map((x) => x.field)).toEqual(['age']);
    } finally {
      await counting.close();
    }
  });
});
