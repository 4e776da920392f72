// The calculation order as our setup runs it (sandbox-setup.ts: pdf.js's runCalculate inlined, markers
// only when something else is said, our AFNumber_Format and AFSimple_Calculate) against pdf.js's own
// layer without our setup, in this process: the same steps on built forms must give the same values,
// formatted values, colours, errors and alerts, in the same order.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormScripts, ScriptField } from '../../src/pdf/scripts/form-model.js';
import { BATCH_COMMAND, CALCULATING_COMMAND, SETUP_ACTION, SETUP_SOURCE } from '../../src/pdf/scripts/sandbox-setup.js';
import { DOC_CALC_OFF, DOC_CALCULATE, planSessions, sessionContext } from '../../src/pdf/scripts/session-plan.js';

interface PdfjsSandbox {
  create(data: unknown): void;
  dispatchEvent(event: unknown): void;
  nukeSandbox(): void;
}

/** What a context said, in order: field messages, errors (first line), alerts; markers dropped. */
let said: unknown[] = [];
const receive = (d: Record<string, unknown>) => {
  if (d.command === BATCH_COMMAND) for (const item of d.items as Record<string, unknown>[]) receive(item);
  else if (d.command === CALCULATING_COMMAND) return;
  else if (d.command === 'error') said.push({ error: String(d.value).split('\n').slice(0, 2).join('\n') });
  else said.push(d);
};

beforeAll(() => {
  const inert = () => 0;
  (globalThis as Record<string, unknown>).window = {
    setTimeout: inert,
    clearTimeout: inert,
    setInterval: inert,
    clearInterval: inert,
    alert: (m: unknown) => said.push({ alert: String(m) }),
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

const text = (name: string, actions: ScriptField['actions'] = {}): ScriptField => ({
  name,
  kind: 'text',
  value: '',
  actions,
  readOnly: false,
});

/** One session's messages: values committed as a person would type them, then the calculation order. */
async function session(form: FormScripts, values: Record<string, string>, withSetup: boolean): Promise<unknown[]> {
  const url = pathToFileURL(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.sandbox.mjs')).href;
  const { QuickJSSandbox } = (await import(url)) as { QuickJSSandbox: () => Promise<PdfjsSandbox> };
  const sandbox = await QuickJSSandbox();
  const plan = planSessions(form);
  const data = sessionContext(plan, new Map()).data() as { docInfo: { actions: Record<string, string[]> } };
  if (withSetup) data.docInfo.actions[SETUP_ACTION] = [SETUP_SOURCE];
  sandbox.create(data);
  said = [];
  if (withSetup) sandbox.dispatchEvent({ id: 'doc', name: SETUP_ACTION });
  expect(said).toEqual([]);
  for (const d of plan.docSteps) sandbox.dispatchEvent({ id: 'doc', name: d.name });
  sandbox.dispatchEvent({ id: 'doc', name: DOC_CALC_OFF });
  for (const [name, value] of Object.entries(values)) {
    sandbox.dispatchEvent({
      id: plan.ids.get(name),
      name: 'Keystroke',
      value,
      willCommit: true,
      change: '',
      changeEx: '',
      selStart: 0,
      selEnd: 0,
    });
  }
  sandbox.dispatchEvent({ id: 'doc', name: DOC_CALCULATE });
  const out = said;
  said = [];
  sandbox.nukeSandbox();
  return out;
}

async function expectSame(form: FormScripts, values: Record<string, string>): Promise<unknown[]> {
  const reference = await session(form, values, false);
  const ours = await session(form, values, true);
  expect(ours).toEqual(reference);
  return ours;
}

const NUM = 'AFNumber_Format(2, 0, 1, 0, "", true);';
const KEY = 'AFNumber_Keystroke(2, 0, 0, 0, "", true);';
const input = (name: string) => text(name, { Keystroke: KEY, Format: NUM });
const calc = (name: string, code: string, format = NUM, more: ScriptField['actions'] = {}) =>
  text(name, { Calculate: code, Format: format, ...more });

describe("the calculation order against pdf.js's own", () => {
  it('chained totals, percent and number formats, red negatives', async () => {
    const form: FormScripts = {
      fields: [
        input('a'),
        input('b'),
        input('c'),
        calc('t1', 'AFSimple_Calculate("SUM", new Array("a", "b"));'),
        calc('t2', 'event.value = AFMakeNumber(getField("t1").value) - AFMakeNumber(getField("c").value);'),
        calc('t3', 'AFSimple_Calculate("AVG", "t1, t2");', 'AFPercent_Format(1, 0);'),
        calc('t4', 'AFSimple_Calculate("PRD", new Array("a", "c"));', 'AFNumber_Format(0, 2, 3, 0, "\u20ac", false);'),
      ],
      calculationOrder: ['t1', 't2', 't3', 't4'],
      documentScripts: [],
    };
    const out = await expectSame(form, { a: '12.5', b: '7.25', c: '100' });
    expect(out).toContainEqual(expect.objectContaining({ value: 19.75, formattedValue: '19.75' }));
    await expectSame(form, { a: '-3', b: '1', c: '0.5' });
  });

  it('an explicit /CO order that runs a total before the line it reads', async () => {
    const form: FormScripts = {
      fields: [
        input('a'),
        calc('late', 'event.value = AFMakeNumber(getField("early").value) * 2;'),
        calc('early', 'event.value = AFMakeNumber(getField("a").value) + 1;'),
      ],
      calculationOrder: ['late', 'early'],
      documentScripts: [],
    };
    const out = await expectSame(form, { a: '4' });
    expect(out).toContainEqual(expect.objectContaining({ value: 0 }));
  });

  it('document-level functions, event properties, rc=false, a refusing validate, a set field, an alert', async () => {
    const form: FormScripts = {
      fields: [
        input('a'),
        input('b'),
        text('note'),
        calc('tax', 'event.value = tax(AFMakeNumber(getField("a").value));'),
        calc('who', 'event.value = event.name + "/" + event.targetName + "/" + event.source.name;', ''),
        calc('keep', 'if (AFMakeNumber(getField("b").value) > 5) event.rc = false; else event.value = 5;'),
        calc('capped', 'event.value = AFMakeNumber(getField("a").value) * 10;', NUM, {
          Validate:
            'if (event.value > 100) { app.alert("too big: " + event.value + " from " + event.source.name); event.rc = false; }',
        }),
        calc('side', 'getField("note").value = "seen " + getField("a").value; event.value = 1;'),
        calc('hide', 'event.target.hidden = getField("b").value === ""; event.value = 2;'),
      ],
      calculationOrder: ['tax', 'who', 'keep', 'capped', 'side', 'hide'],
      documentScripts: [{ name: 'lib', code: 'function tax(x) { return Math.round(x * 20) / 100; }' }],
    };
    await expectSame(form, { a: '12', b: '9' });
    await expectSame(form, { a: '3', b: '' });
  });

  it('empty inputs, division by zero, a script that throws', async () => {
    const form: FormScripts = {
      fields: [
        input('a'),
        input('b'),
        // unformatted: pdf.js's AFNumber_Format never ends on Infinity (it runs out of memory; so does ours,
        // which hands it non-finite numbers)
        calc('ratio', 'event.value = AFMakeNumber(getField("a").value) / AFMakeNumber(getField("b").value);', ''),
        calc('nan', 'event.value = 0 / AFMakeNumber(getField("b").value);', ''),
        calc('guarded', 'var b = AFMakeNumber(getField("b").value); event.value = b ? 100 / b : "";'),
        calc('sum', 'AFSimple_Calculate("SUM", "a, b");'),
        calc('boom', 'event.value = missing.value;'),
        calc('after', 'event.value = AFMakeNumber(getField("sum").value) + 1;'),
        calc('raw', 'event.value = getField("a").value;', ''),
      ],
      calculationOrder: ['ratio', 'nan', 'guarded', 'sum', 'boom', 'after', 'raw'],
      documentScripts: [],
    };
    const out = await expectSame(form, { a: '10', b: '0' });
    expect(out).toContainEqual(expect.objectContaining({ error: expect.stringContaining('missing') }));
    await expectSame(form, {});
    await expectSame(form, { a: '', b: '' });
    await expectSame(form, { a: '7' });
  });
});
