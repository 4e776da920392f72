// The corpus forms with scripts, rendered with their scripts on. The Luxembourg salary certificate computes
// three totals (sous-total of the remuneration lines, deductible social contributions, and the taxable base
// line 25) with AFSimple_Calculate and simplified field notation, shows them in its own format (AFNumber
// sepStyle 2: "1.234,50") and hides each total until its lines have values. Every other corpus form with
// keystroke or validate scripts renders with them on, without a script warning.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFString } from '@cantoo/pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import type { FillValue } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftotext } from '../helpers/pdf-tools.js';

const dir = corpusDir();
const LUX = 'luxembourg-certificat-salaire-160-2019.pdf';
const available = !!dir && hasTool('pdftotext');
const sandbox = new ScriptSandbox();
const cache = new TemplateCache({ maxEntries: 20, maxBytes: 512 * 1024 * 1024, sandbox });
afterAll(() => sandbox.close());

const text = (t: string): FillValue => ({ kind: 'text', text: t });
/** What render-data makes of a number for an AFNumber(2, sepStyle 2) field. */
const de = (n: number) =>
  n.toLocaleString('de-DE', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).replace(/\u00a0/g, ' ');

async function valuesOf(bytes: Uint8Array): Promise<Record<string, string>> {
  const doc = await PDFDocument.load(bytes);
  const out: Record<string, string> = {};
  for (const f of doc.getForm().getFields()) {
    const v = f.acroField.dict.lookup(PDFName.of('V'));
    out[f.getName()] = v instanceof PDFHexString || v instanceof PDFString ? v.decodeText() : '';
  }
  return out;
}

describe.skipIf(!available)('corpus forms with scripts', () => {
  it('Luxembourg salary certificate: the three totals equal the sums of their lines, in the form format', async () => {
    const bytes = fs.readFileSync(path.join(dir!, 'pdfs', LUX));
    const analysis = await analyse(bytes);
    const lines = { 'N.REM1': 41250.5, 'N.REM2': 1200, 'N.REM3': 350.25, 'N.REM4': 99.75 };
    const social = { 'N.CASS': 5400.4, 'N.CASSNONDED': 400.4 };
    const deductions = { 'N.10': 1000, 'N.11': 250.5, 'N.17': 120 };
    const values: Record<string, FillValue> = {};
    for (const [k, n] of Object.entries({ ...lines, ...social, ...deductions })) values[k] = text(de(n));
    const sousTotal = Object.values(lines).reduce((a, b) => a + b, 0); // 42 900,50
    const cotded = social['N.CASS'] - social['N.CASSNONDED']; // 5 000,00
    const base = sousTotal - cotded - Object.values(deductions).reduce((a, b) => a + b, 0); // 36 530,00

    const result = await fillPdf(bytes, analysis, { values, flatten: false }, 'lux', cache);
    expect(result.scriptWarnings).toEqual([]);
    expect(result.scriptRejections).toEqual([]);
    const v = await valuesOf(result.bytes);
    expect(Number(v['T.TOTREM'])).toBeCloseTo(sousTotal, 6);
    expect(Number(v['T.COTDED'])).toBeCloseTo(cotded, 6);
    expect(Number(v['T.21'])).toBeCloseTo(base, 6);

    // drawn in the form's own format, also when flattened; the totals were hidden in the template
    const flat = await fillPdf(bytes, analysis, { values, flatten: true }, 'lux', cache);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lux-'));
    try {
      for (const [name, out] of [
        ['filled.pdf', result.bytes],
        ['flat.pdf', flat.bytes],
      ] as const) {
        fs.writeFileSync(path.join(tmp, name), out);
        const page = (await pdftotext(path.join(tmp, name))).replace(/\s+/g, ' ');
        for (const n of [sousTotal, cotded, base]) expect(page, name).toContain(de(n));
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }

    // with no remuneration lines the sous-total stays hidden (its validate script), as in Acrobat
    const none = await fillPdf(bytes, analysis, { values: {}, flatten: false }, 'lux', cache);
    expect(none.scriptWarnings).toEqual([]);
  });

  it('Luxembourg with calculate: false leaves the totals to the caller', async () => {
    const bytes = fs.readFileSync(path.join(dir!, 'pdfs', LUX));
    const analysis = await analyse(bytes);
    const values = { 'N.REM1': text('10,00'), 'T.TOTREM': text('99,00') };
    const r = await fillPdf(bytes, analysis, { values, flatten: false, calculate: false }, 'lux', cache);
    expect((await valuesOf(r.bytes))['T.TOTREM']).toBe('99,00');
  });

  it.each([
    'pdfjs-date-formats.pdf',
    'pdflib-sample-form.pdf',
    'osha-300-injury-illness-forms.pdf',
    'uscourts-b107-financial-affairs.pdf',
    'japan-jlpt-2025-application.pdf',
  ])('%s renders with its keystroke and format scripts on, without a script warning', async (file) => {
    const bytes = fs.readFileSync(path.join(dir!, 'pdfs', file));
    const analysis = await analyse(bytes);
    // one value per text field the analysis formats as a number: the number as render-data would write it
    const values: Record<string, FillValue> = {};
    for (const f of analysis.fields) {
      const fmt = f.detail.format;
      if (fmt?.kind === 'number' && !f.pdfMeta.readOnly)
        values[f.pdfMeta.originalName] = text(fmt.sepStyle >= 2 ? '12,50' : '12.50');
    }
    const r = await fillPdf(bytes, analysis, { values, flatten: false }, file, cache);
    expect(r.scriptWarnings).toEqual([]);
    expect(r.scriptRejections).toEqual([]);
  });
});
