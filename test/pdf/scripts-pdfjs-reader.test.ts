// The independent reader of computed values (issue 23): pdf.js, in Debian's Chromium, runs the form's own
// scripts with its scripting on (its QuickJS sandbox, pdf.sandbox.mjs, as its viewer does) while the
// caller's values are typed into the template's fields, one committed value after another, as a person
// would type them in the viewer. Its totals must equal what the service computed and wrote into /V from the
// same values sent as JSON. pdf.js reads the template, its field tree, actions and calculation order
// itself; only the script interpreter is the same code as ours.
//
// Our outputs themselves cannot be handed to pdf.js to recompute: they carry no scripts (every output is
// stripped of active content, docs/decisions.md), so pdf.js opens an unflattened output with nothing to
// run; that is asserted below, and its totals are then exactly the /V we wrote.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { PDFDocument, PDFHexString, PDFName, PDFString } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import type { FillValue } from '../../src/pdf/types.js';
import { CHROMIUM, launchChromium } from '../helpers/browser.js';
import { buildCalcForm } from '../helpers/calc-forms.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();
const LUX = 'luxembourg-certificat-salaire-160-2019.pdf';
const pdfjsBuild = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.mjs'));

const sandbox = new ScriptSandbox();
const cache = new TemplateCache({ maxEntries: 8, maxBytes: 128 * 1024 * 1024, sandbox });

/** /V of every field of a PDF, by full name. */
async function valuesOf(bytes: Uint8Array): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of (await PDFDocument.load(bytes)).getForm().getFields()) {
    const v = f.acroField.dict.lookup(PDFName.of('V'));
    out[f.getName()] = v instanceof PDFHexString || v instanceof PDFString ? v.decodeText() : '';
  }
  return out;
}

/** What pdf.js computed: each field's last value and formatted value the sandbox sent, by name. */
type PdfjsResult = { values: Record<string, { value: unknown; formattedValue?: unknown }>; actions: number };

/** What runs in the page: pdf.js and its scripting sandbox, as its viewer runs them. */
const IN_PAGE = `async ({ url, typed }) => {
  const pdfjs = await import('/pdfjs/pdf.mjs');
  pdfjs.GlobalWorkerOptions.workerSrc = '/pdfjs/pdf.worker.mjs';
  const doc = await pdfjs.getDocument({ url }).promise;
  const objects = (await doc.getFieldObjects()) ?? {};
  const calculationOrder = await doc.getCalculationOrderIds();
  const actions = await doc.getJSActions();
  const values = {};
  const byId = new Map();
  for (const [n, list] of Object.entries(objects)) for (const o of list) byId.set(o.id, n);
  const listener = (e) => {
    const d = e.detail;
    const n = d && typeof d.id === 'string' ? byId.get(d.id) : undefined;
    if (n && 'value' in d) values[n] = { value: d.value, formattedValue: d.formattedValue };
  };
  window.addEventListener('updatefromsandbox', listener);
  const { QuickJSSandbox } = await import('/pdfjs/pdf.sandbox.mjs');
  const sandbox = await QuickJSSandbox();
  sandbox.create({
    objects,
    calculationOrder,
    appInfo: { platform: 'Linux x86_64', language: 'en-US' },
    docInfo: { actions, numPages: doc.numPages, baseURL: url, filesize: 0 },
  });
  sandbox.dispatchEvent({ id: 'doc', name: 'Open' });
  for (const [field, value] of Object.entries(typed)) {
    const id = objects[field][0].id;
    sandbox.dispatchEvent({ id, name: 'Keystroke', value, willCommit: true, change: '', selStart: 0, selEnd: 0 });
  }
  sandbox.nukeSandbox();
  window.removeEventListener('updatefromsandbox', listener);
  const scripted = Object.values(objects).filter((list) => list.some((o) => o.actions)).length;
  await doc.destroy();
  return { values, actions: Object.keys(actions ?? {}).length + scripted };
}`;

describe.skipIf(!fs.existsSync(CHROMIUM) || !dir)('pdf.js in Chromium computes the same totals as the service', () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const files = new Map<string, Uint8Array>();

  beforeAll(async () => {
    // pdf.js's own files from node_modules, and the PDFs under test, from one origin
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const pdf = files.get(url.pathname);
      const file = url.pathname.startsWith('/pdfjs/') ? path.join(pdfjsBuild, path.basename(url.pathname)) : '';
      if (pdf) res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
      else if (file && fs.existsSync(file))
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(file));
      else if (url.pathname === '/')
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>pdf.js</title>');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${base}/`);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await sandbox.close();
  });

  /**
   * Opens `name` in pdf.js, starts its scripting sandbox with the document's own field objects, actions
   * and calculation order (what PDFScriptingManager gives it), opens the document, then commits each typed
   * value to its field (a Keystroke with willCommit, as the viewer sends on leaving a field).
   */
  async function computeWithPdfjs(name: string, typed: Record<string, string>): Promise<PdfjsResult> {
    const args = JSON.stringify({ url: `${base}${name}`, typed });
    // a string, not a function: the test runner rewrites import() in functions it compiles
    return page.evaluate(`(${IN_PAGE})(${args})`) as Promise<PdfjsResult>;
  }

  async function compare(
    template: Uint8Array,
    sent: Record<string, number>,
    typed: Record<string, string>,
    totals: string[],
  ): Promise<void> {
    const analysis = await analyse(template);
    const values: Record<string, FillValue> = {};
    const info = new Map(analysis.fields.map((f) => [f.pdfMeta.originalName, f]));
    for (const [k, n] of Object.entries(sent)) {
      const fmt = info.get(k)?.detail.format;
      // what render-data writes for a JSON number: the field's own format (as the API would)
      const text = fmt?.kind === 'number' && fmt.sepStyle === 2 ? n.toFixed(2).replace('.', ',') : n.toFixed(2);
      values[k] = { kind: 'text', text };
    }
    const ours = await fillPdf(template, analysis, { values, flatten: false }, undefined, cache);
    expect(ours.scriptWarnings).toEqual([]);
    const v = await valuesOf(ours.bytes);

    files.set('/template.pdf', template);
    const theirs = await computeWithPdfjs('/template.pdf', typed);
    for (const t of totals) {
      expect(theirs.values[t], `pdf.js computed ${t}`).toBeDefined();
      expect(Number(v[t]), `${t} computed by us`).not.toBe(0);
      expect(Number(v[t]), t).toBeCloseTo(Number(theirs.values[t].value), 6);
    }

    // our unflattened output, with the inputs only: pdf.js finds no script to run in it
    const inputsOnly = await fillPdf(
      template,
      analysis,
      { values, flatten: false, calculate: false },
      undefined,
      cache,
    );
    files.set('/inputs-only.pdf', inputsOnly.bytes);
    const reopened = await computeWithPdfjs('/inputs-only.pdf', {});
    expect(reopened.actions).toBe(0);
  }

  it.skipIf(!dir)('the Luxembourg certificate: sous-total, deductible contributions and taxable base', async () => {
    const template = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', LUX)));
    const sent = {
      'N.REM1': 41250.5,
      'N.REM2': 1200,
      'N.REM3': 350.25,
      'N.REM4': 99.75,
      'N.CASS': 5400.4,
      'N.CASSNONDED': 400.4,
      'N.10': 1000,
      'N.17': 120,
    };
    // typed as a person types into these sepStyle 2 fields: a decimal comma, no grouping
    const typed = Object.fromEntries(Object.entries(sent).map(([k, n]) => [k, n.toFixed(2).replace('.', ',')]));
    await compare(template, sent, typed, ['T.TOTREM', 'T.COTDED', 'T.21']);
  });

  it('a chain of calculations in an explicit order that differs from field order', async () => {
    const form = await buildCalcForm({
      fields: [
        {
          name: 'grand',
          C: 'event.value = AFMakeNumber(this.getField("net").value) + AFMakeNumber(this.getField("tip").value);',
        },
        { name: 'net', C: 'event.value = this.getField("gross").value * (1 - this.getField("rate").value / 100);' },
        { name: 'gross', C: 'AFSimple_Calculate("SUM", new Array("l1", "l2", "l3"));' },
        { name: 'l1', F: 'AFNumber_Format(2, 0, 0, 0, "", true);' },
        { name: 'l2', F: 'AFNumber_Format(2, 0, 0, 0, "", true);' },
        { name: 'l3', F: 'AFNumber_Format(2, 0, 0, 0, "", true);' },
        { name: 'rate' },
        { name: 'tip' },
      ],
      order: ['gross', 'net', 'grand'],
    });
    const sent = { l1: 100.5, l2: 200.5, l3: 300.5, rate: 10, tip: 7.25 };
    const typed = Object.fromEntries(Object.entries(sent).map(([k, n]) => [k, String(n)]));
    await compare(form.bytes, sent, typed, ['gross', 'net', 'grand']);
  });
});
