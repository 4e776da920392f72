// The script runtime's target: a form with 50 calculated fields (each a total of two input lines, drawn
// with AFNumber_Format, the last ten chained on earlier totals) renders within 2× the same form with
// `calculate: false`. One sandbox for the whole run, as a render worker has: its start (the QuickJS wasm
// and its thread) is measured once, apart, and is not part of any render's time.
import { PDFDocument, PDFHexString, PDFName } from '@cantoo/pdf-lib';
import { analyse } from '../src/pdf/analysis/analyse.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { FontLibrary } from '../src/pdf/fonts/font-library.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../src/pdf/scripts/sandbox.js';
import type { FillValue } from '../src/pdf/types.js';
import { summarise, type Summary, type TimeOptions } from './stats.js';

export interface ScriptsResult {
  /** the first render with scripts on: the sandbox thread starts */
  firstMs: number;
  on: Summary;
  off: Summary;
  warnings: number;
  /**
   * the process's RSS, MB: before the sandbox's thread starts, after the first render with scripts (the
   * thread, its QuickJS and the form's context and snapshot) and after the timed renders
   */
  rssMb: { before: number; first: number; end: number };
}

const TOTALS = 50;

async function calcForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const form = doc.getForm();
  const js = (code: string) => doc.context.obj({ S: 'JavaScript', JS: PDFHexString.fromText(code) });
  const fmt = 'AFNumber_Format(2, 0, 0, 0, "", true);';
  for (let p = 0; p < 5; p++) {
    const page = doc.addPage([612, 792]);
    for (let r = 0; r < 10; r++) {
      const i = p * 10 + r;
      const y = 740 - r * 70;
      for (const [k, x] of [
        [`a${i}`, 40],
        [`b${i}`, 220],
      ] as const) {
        const f = form.createTextField(k);
        f.addToPage(page, { x, y, width: 160, height: 20 });
        f.acroField.dict.set(
          PDFName.of('AA'),
          doc.context.obj({ K: js('AFNumber_Keystroke(2, 0, 0, 0, "", true);'), F: js(fmt) }),
        );
      }
      const t = form.createTextField(`t${i}`);
      t.addToPage(page, { x: 400, y, width: 170, height: 20 });
      const calc =
        i >= 40
          ? `event.value = AFMakeNumber(this.getField("t${i - 40}").value) + AFMakeNumber(this.getField("a${i}").value);`
          : `AFSimple_Calculate("SUM", new Array("a${i}", "b${i}"));`;
      t.acroField.dict.set(PDFName.of('AA'), doc.context.obj({ C: js(calc), F: js(fmt) }));
    }
  }
  return doc.save();
}

export async function benchScripts(opts: TimeOptions): Promise<ScriptsResult> {
  const bytes = await calcForm();
  const analysis = await analyse(bytes);
  const rss = () => process.memoryUsage().rss / (1024 * 1024);
  const sandbox = new ScriptSandbox();
  const cache = new TemplateCache({
    maxEntries: 4,
    maxBytes: 64 * 1024 * 1024,
    fonts: new FontLibrary({ shapeCacheEntries: 4096 }),
    sandbox,
  });
  const values: Record<string, FillValue> = {};
  for (let i = 0; i < TOTALS; i++) {
    values[`a${i}`] = { kind: 'text', text: `${(i * 13.25).toFixed(2)}` };
    values[`b${i}`] = { kind: 'text', text: `${(i * 7.5).toFixed(2)}` };
  }
  const render = (calculate: boolean) => () =>
    fillPdf(bytes, analysis, { values, flatten: false, calculate }, 'bench-calc', cache);
  try {
    await render(false)(); // prepares the template: not the sandbox's cost
    const before = rss();
    const t0 = performance.now();
    const first = await render(true)();
    const firstMs = performance.now() - t0;
    const afterFirst = rss();
    const [on, off] = [render(true), render(false)];
    for (let i = 0; i < opts.warmup; i++) {
      await on();
      await off();
    }
    const samples: [number[], number[]] = [[], []];
    const deadline = performance.now() + opts.maxSeconds * 2000;
    for (let i = 0; i < opts.iterations; i++) {
      for (const [k, fn] of [on, off].entries()) {
        const t = performance.now();
        await fn();
        samples[k].push(performance.now() - t);
      }
      if (i >= 4 && performance.now() > deadline) break;
    }
    return {
      firstMs,
      on: summarise(samples[0]),
      off: summarise(samples[1]),
      warnings: first.scriptWarnings?.length ?? 0,
      rssMb: { before, first: afterFirst, end: rss() },
    };
  } finally {
    await sandbox.close();
  }
}
