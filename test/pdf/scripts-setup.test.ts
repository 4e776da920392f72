// What the sandbox does to a form's context before its snapshot (src/pdf/scripts/sandbox-setup.ts): its
// AFNumber_Format and AFSimple_Calculate give what pdf.js's own give, for a grid of values and arguments
// (the reference is pdf.js's sandbox without our setup, run in this process); field scripts compiled once
// run in a scope of their own; a script that would close its function early never runs at setup.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { BATCH_COMMAND, SETUP_ACTION, SETUP_SOURCE } from '../../src/pdf/scripts/sandbox-setup.js';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { planSessions, sessionContext } from '../../src/pdf/scripts/session-plan.js';
import { buildCalcForm, renderCalc } from '../helpers/calc-forms.js';

interface PdfjsSandbox {
  create(data: unknown): void;
  dispatchEvent(event: unknown): void;
}

/** Everything a context's scripts print (console.println), batched or not. */
let printed: string[] = [];
const receive = (d: Record<string, unknown>) => {
  if (d.command === BATCH_COMMAND) for (const item of d.items as Record<string, unknown>[]) receive(item);
  else if (d.command === 'println') printed.push(String(d.value).replace('PDF.js Console:: ', ''));
};

beforeAll(() => {
  const inert = () => 0;
  (globalThis as Record<string, unknown>).window = {
    setTimeout: inert,
    clearTimeout: inert,
    setInterval: inert,
    clearInterval: inert,
    alert: inert,
    confirm: () => false,
    prompt: () => null,
    CustomEvent: function (this: { detail: unknown }, _type: string, init: { detail: unknown }) {
      this.detail = init.detail;
    },
    dispatchEvent: (e: { detail: Record<string, unknown> }) => receive(e.detail),
    console: { log: inert, warn: inert, error: inert },
  };
});
afterAll(() => {
  delete (globalThis as Record<string, unknown>).window;
});

/** pdf.js's QuickJS context for a small form, with or without our setup, running `code` as a document script. */
async function runInContext(code: string, withSetup: boolean, names = ['a', 'b', 'c']): Promise<string[]> {
  const url = pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.sandbox.mjs')).href;
  const { QuickJSSandbox } = (await import(url)) as { QuickJSSandbox: () => Promise<PdfjsSandbox> };
  const sandbox = await QuickJSSandbox();
  const text = (name: string) => ({ name, kind: 'text' as const, value: '', actions: {}, readOnly: false });
  const plan = planSessions({
    fields: [...names.map(text), { ...text('t'), actions: { Calculate: 'event.value = 1;' } }],
    calculationOrder: ['t'],
    documentScripts: [],
  });
  const data = sessionContext(plan, new Map()).data() as { docInfo: { actions: Record<string, string[]> } };
  data.docInfo.actions['test:run'] = [code];
  if (withSetup) data.docInfo.actions[SETUP_ACTION] = [SETUP_SOURCE];
  sandbox.create(data);
  printed = [];
  if (withSetup) sandbox.dispatchEvent({ id: 'doc', name: SETUP_ACTION });
  expect(printed).toEqual([]);
  sandbox.dispatchEvent({ id: 'doc', name: 'test:run' });
  return printed;
}

const FORMAT_GRID = `
var values = [0, -0, 0.5, -0.5, 0.004, 0.005, 0.015, 0.995, -0.995, 1.005, 2.675, 999.995, 1234.5, -1234.5,
  1000000.125, -0.0001, 12345678.9, -987654321.987, 1e21, "1,5", "1.234,50", " 42 ", "-7.25", "abc", "", null, true];
var args = [];
[0, 1, 2, 3, 6].forEach(function (d) { [0, 1, 2, 3, 4, 2.7, -1, 9].forEach(function (s) {
  [0, 1, 2, 3].forEach(function (n) { ["", "\\u20ac", "$ "].forEach(function (c) { [true, false].forEach(function (p) {
    args.push([d, s, n, 0, c, p]); }); }); }); }); });
args.push([2.5, 0, 0, 0, "", true], [2, NaN, 0, 0, "", true], [2, 0, 0, 0, "%", true], ["2", 0, 0, 0, "", false],
  [2, 0, 0, 0, undefined, false], [25, 0, 0, 0, "", false]);
var t = getField("t");
var out = [];
values.forEach(function (v) { args.forEach(function (a) {
  event.target = t; t.textColor = ["G", 0]; event.value = v;
  try { AFNumber_Format.apply(null, a); out.push([event.value, t.textColor]); } catch (e) { out.push(["throws", String(e)]); }
}); });
console.println(String(out.length));
console.println(JSON.stringify(out));
console.println(String(AFNumber_Format).indexOf("[native code]") === -1 ? "replaced" : "pdf.js");
`;

const CALC_GRID = `
var inputs = [["1", "2", "3"], ["1,5", "-2", ""], ["abc", "0", "7.25"], ["-3", "-4", "-5"], ["", "", ""], ["1e3", " 8 ", "x9"]];
var lists = [["a", "b"], "a, b", "a,b,c", ["a", "missing"], [], "missing", ["c"], new Array("a", "b", "c")];
var fns = ["SUM", "AVG", "PRD", "MIN", "MAX", "FOO", "toString"];
var out = [];
inputs.forEach(function (vals) {
  getField("a").value = vals[0]; getField("b").value = vals[1]; getField("c").value = vals[2];
  lists.forEach(function (l) { fns.forEach(function (f) {
    event.value = null;
    try { AFSimple_Calculate(f, l); out.push(event.value); } catch (e) { out.push("throws " + e); }
  }); });
});
console.println(JSON.stringify(out));
`;

describe("our AF functions against pdf.js's", () => {
  it('AFNumber_Format: the same text and colour for every value and argument of the grid', async () => {
    const ours = await runInContext(FORMAT_GRID, true);
    const pdfjs = await runInContext(FORMAT_GRID, false);
    expect(Number(ours[0])).toBeGreaterThan(25_000);
    expect(ours[2]).toBe('replaced');
    expect(pdfjs[2]).toBe('pdf.js');
    expect(JSON.parse(ours[1])).toEqual(JSON.parse(pdfjs[1]));
  });

  it('AFSimple_Calculate: the same result (or error) for every function, list and value', async () => {
    const ours = await runInContext(CALC_GRID, true);
    const pdfjs = await runInContext(CALC_GRID, false);
    expect(JSON.parse(ours[0]).length).toBe(6 * 8 * 7);
    expect(JSON.parse(ours[0])).toEqual(JSON.parse(pdfjs[0]));
  });
});

it("getArray() lists the same fields, in the same order, as pdf.js's own scan", async () => {
  const names = ['row.0', 'row.1', 'rowx', 'row.2.a', 'row.2.b', 'a..b', 'a.', 'a', 'b.c', 'b', 'z'];
  const code = `var out = {}; ${JSON.stringify([...names, 'row', 'row.2', 't'])}.forEach(function (n) {
    var f = getField(n); out[n] = f ? f.getArray().map(function (k) { return k.name; }) : null; });
    console.println(JSON.stringify(out));`;
  const ours = JSON.parse((await runInContext(code, true, names))[0]);
  expect(ours).toEqual(JSON.parse((await runInContext(code, false, names))[0]));
  expect(ours['row.2']).toEqual(['row.2.a', 'row.2.b']);
  expect(ours.a).toEqual(['a..b', 'a.', 'a']);
});

describe('field scripts compiled once per form', () => {
  const sandbox = new ScriptSandbox();
  const cache = new TemplateCache({ maxEntries: 10, maxBytes: 64 * 1024 * 1024, sandbox });
  afterAll(() => sandbox.close());

  it("a field script's var is its own (Acrobat's field-level scope); a document script's is global", async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a' },
        { name: 'first', C: 'var shared = 5; event.value = shared + libValue;' },
        { name: 'second', C: 'event.value = typeof shared + "," + typeof libValue;' },
      ],
      order: ['first', 'second'],
      docScripts: { lib: 'var libValue = 10;' },
    });
    const r = await renderCalc(cache, form, { a: '1' });
    expect(r.result.scriptWarnings).toEqual([]);
    expect([r.v.first, r.v.second]).toEqual(['15', 'undefined,number']);
  });

  it('a script that closes its function early never runs at setup: it fails alone, at render time', async () => {
    const breakout = '}\nglobalThis.leaked = 1;\nfunction formcast$action() {';
    const form = await buildCalcForm({
      fields: [
        { name: 'a' },
        { name: 'bad', C: breakout },
        { name: 'probe', C: 'event.value = typeof leaked;' },
        { name: 'sum', C: 'AFSimple_Calculate("SUM", new Array("a"));' },
      ],
      order: ['bad', 'probe', 'sum'],
    });
    const r = await renderCalc(cache, form, { a: '4' });
    expect(r.v.probe).toBe('undefined');
    expect(r.v.sum).toBe('4');
    expect((r.result.scriptWarnings ?? []).map((w) => [w.field, w.code])).toEqual([['bad', 'SCRIPT_ERROR']]);
  });
});
