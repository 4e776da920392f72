// Hostile form scripts are bounded by the sandbox (QuickJS in WebAssembly, in a worker thread with a time
// budget and capped memory): each ends as a warning on its own field, the other fields still compute, no
// host object is reachable, and the next render on the same sandbox works. No timing is asserted: an
// endless loop always outlasts the budget, however busy the machine.
import { afterAll, describe, expect, it } from 'vitest';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { buildCalcForm, fillValues, renderCalc, type CalcField } from '../helpers/calc-forms.js';
import { hasTool } from '../helpers/pdf-tools.js';

const sandbox = new ScriptSandbox();
const cache = new TemplateCache({ maxEntries: 50, maxBytes: 256 * 1024 * 1024, sandbox });
afterAll(() => sandbox.close());

const SUM = 'AFSimple_Calculate("SUM", new Array("a", "b"));';

/** A form where `bad` runs the hostile script between two honest totals. */
async function hostile(script: string, extra: Partial<CalcField> = {}) {
  return buildCalcForm({
    fields: [
      { name: 'a' },
      { name: 'b' },
      { name: 'before', C: SUM },
      { name: 'bad', value: 'stale', C: script, ...extra },
      { name: 'after', C: 'event.value = 10 * this.getField("before").value;' },
    ],
    order: ['before', 'bad', 'after'],
  });
}

/** The render after a hostile one: a plain form on the same sandbox computes. */
async function nextRenderWorks() {
  const form = await buildCalcForm({ fields: [{ name: 'a' }, { name: 'b' }, { name: 'sum', C: SUM }] });
  const r = await renderCalc(cache, form, { a: '2', b: '3' });
  expect(r.v.sum).toBe('5');
  expect(r.result.scriptWarnings).toEqual([]);
}

describe.skipIf(!hasTool('pdftotext'))('hostile form scripts', () => {
  it.each([
    ['an endless loop', 'while (true) {}', 'SCRIPT_BUDGET'],
    ['an endless loop in a document-level function', 'spin();', 'SCRIPT_BUDGET'],
    ['unbounded recursion', 'function f(n) { return f(n + 1) + 1; } event.value = f(0);', 'SCRIPT_'],
    ['a 100 MB string', 'var s = "x".repeat(100 * 1024 * 1024); event.value = s.length;', 'SCRIPT_BUDGET'],
    ['an ever-growing array', 'var a = []; for (;;) a.push("abcdefghijklmnop" + a.length);', 'SCRIPT_BUDGET'],
    ['a thrown error', 'throw new Error("boom");', 'SCRIPT_ERROR'],
    ['a flood of output', 'var s = "y".repeat(1 << 20); for (;;) console.println(s);', 'SCRIPT_BUDGET'],
  ])('%s ends as a warning on its field; the others compute', async (_what, script, code) => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a' },
        { name: 'b' },
        { name: 'before', C: SUM },
        { name: 'bad', value: 'stale', C: script },
        { name: 'after', C: 'event.value = 10 * this.getField("before").value;' },
      ],
      order: ['before', 'bad', 'after'],
      docScripts: { lib: 'function spin() { for (;;) {} }' },
    });
    const r = await renderCalc(cache, form, { a: '1', b: '2' });
    const mine = (r.result.scriptWarnings ?? []).filter((w) => w.field === 'bad');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine[0].code.startsWith(code)).toBe(true);
    expect((r.result.scriptWarnings ?? []).every((w) => w.field === 'bad')).toBe(true);
    // the hostile field is emptied (its saved "stale" value would be silently wrong); the others compute
    expect(r.v.bad).toBe('');
    expect(r.v.before).toBe('3');
    expect(r.v.after).toBe('30');
    await nextRenderWorks();
  });

  it('no host object is reachable: process, require, globalThis of Node, fetch, timers', async () => {
    const probe =
      'event.value = [typeof process, typeof require, typeof module, typeof fetch, typeof setTimeout, typeof WebAssembly, typeof Buffer, typeof window, typeof callExternalFunction].join(",");';
    const form = await hostile(probe);
    const r = await renderCalc(cache, form, { a: '1' });
    expect(r.v.bad.split(',')).toEqual(Array(9).fill('undefined'));
    const ctor = await hostile(
      'event.value = String((function () { return this; }).constructor("return typeof process")());',
    );
    expect((await renderCalc(cache, ctor, { a: '1' })).v.bad).toBe('undefined');
  });

  it('prototype tricks stay inside their render', async () => {
    const form = await hostile('Object.prototype.toString = function () { return "pwned"; }; event.value = "" + {};');
    expect((await renderCalc(cache, form, { a: '1', b: '2' })).v.bad).toBe('pwned');
    // breaking what pdf.js's own layer uses costs this render's scripts at most, never the render
    const wrecked = await hostile(
      'Array.prototype.join = null; String.prototype.trim = null; Function.prototype.call = null; JSON.stringify = null; event.value = 1;',
    );
    await renderCalc(cache, wrecked, { a: '1', b: '2' });
    // each render gets a fresh context: the next one sees the real built-ins
    const clean = await hostile('event.value = ({}).toString() + [1, 2].join("-");');
    expect((await renderCalc(cache, clean, { a: '1' })).v.bad).toBe('[object Object]1-2');
    await nextRenderWorks();
  });

  it('globals a script leaves behind do not reach the next render of the same template', async () => {
    const form = await hostile('if (typeof seen === "undefined") { seen = 0; } seen++; event.value = seen;');
    expect((await renderCalc(cache, form, { a: '1' })).v.bad).toBe('1');
    expect((await renderCalc(cache, form, { a: '1' })).v.bad).toBe('1');
  });

  it("one render's values never reach the next, of the same template or another one", async () => {
    // Each session starts from the form's pristine context (a snapshot of QuickJS's memory), whatever the
    // render before it set or stashed: the caller's values, globals, the fields' values.
    const stash =
      'if (typeof stash === "undefined") { stash = []; } stash.push(this.getField("a").value); event.value = stash.join("|");';
    const form = await buildCalcForm({
      fields: [{ name: 'a' }, { name: 'b' }, { name: 'sum', C: SUM }, { name: 'seen', C: stash }],
    });
    const first = await renderCalc(cache, form, { a: '111', b: '1' });
    expect([first.v.sum, first.v.seen]).toEqual(['112', '111']);
    const second = await renderCalc(cache, form, { b: '2' });
    expect([second.v.sum, second.v.seen]).toEqual(['2', '']);
    // another template (another tenant's, say) on the same sandbox sees none of it either
    const other = await buildCalcForm({
      fields: [
        { name: 'b' },
        { name: 'probe', C: 'event.value = typeof stash + "," + (this.getField("a") === null);' },
      ],
    });
    expect((await renderCalc(cache, other, { b: '5' })).v.probe).toBe('undefined,true');
    // and back to the first: still pristine
    const third = await renderCalc(cache, form, { a: '7' });
    expect([third.v.sum, third.v.seen]).toEqual(['7', '7']);
  });

  it('unsupported APIs (app.alert with a reply, xfa, mail, SOAP) are reported and not run', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a' },
        { name: 'ask', value: 'stale', C: 'if (app.alert("Sure?", 2, 2) == 4) event.value = 1; else event.value = 2;' },
        { name: 'xfa', C: 'event.value = xfa.resolveNode("a").rawValue;' },
        { name: 'mail', C: 'this.mailDoc(true); event.value = 1;' },
        { name: 'soap', C: 'event.value = SOAP.request({ cURL: "http://example.invalid" });' },
        { name: 'sum', C: 'AFSimple_Calculate("SUM", new Array("a"));' },
      ],
    });
    const r = await renderCalc(cache, form, { a: '4' });
    const codes = Object.fromEntries((r.result.scriptWarnings ?? []).map((w) => [w.field, w.code]));
    expect(codes).toEqual({
      ask: 'SCRIPT_UNSUPPORTED',
      xfa: 'SCRIPT_UNSUPPORTED',
      mail: 'SCRIPT_UNSUPPORTED',
      soap: 'SCRIPT_UNSUPPORTED',
    });
    expect(r.v.ask).toBe('');
    expect(r.v.xfa).toBe('');
    expect(r.v.mail).toBe('');
    expect(r.v.sum).toBe('4');
  });

  it('without a sandbox passed in, a render starts its own and stops it (no cache)', async () => {
    const form = await hostile('while (true) {}');
    const r = await fillPdf(form.bytes, form.analysis, { values: fillValues({ a: '1', b: '1' }), flatten: false });
    expect((r.scriptWarnings ?? []).map((w) => [w.field, w.code])).toEqual([['bad', 'SCRIPT_BUDGET']]);
  });
});
