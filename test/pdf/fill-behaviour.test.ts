// One behaviour per test of fillPdf on real corpus files, read back with pdf-lib (our loader) and,
// where it matters, with the independent tools.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDict, PDFName, PDFRawStream, decodePDFRawStream } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { loadPdf } from '../../src/pdf/load.js';
import { PdfEngineError, type FillRequest } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/png.js';

const dir = corpusDir();
const toolsMissing = ['qpdf', 'pdftk', 'pdftotext'].filter((t) => !hasTool(t));

function read(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', name)));
}

async function fill(name: string, request: FillRequest) {
  const bytes = read(name);
  return fillPdf(bytes, await analyse(bytes), request);
}

describe('fillPdf input errors', () => {
  it('answers RENDER_FAILED for bytes that are not a PDF', async () => {
    const bad = new TextEncoder().encode('this is not a pdf at all');
    const err = await fillPdf(
      bad,
      { fields: [], pageCount: 1, encrypted: false, hasXfa: false },
      { values: {}, flatten: true },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(PdfEngineError);
    expect(err.code).toBe('RENDER_FAILED');
  });
});

describe.skipIf(!dir)('fillPdf behaviour on corpus files (needs ../shared/corpus or CORPUS_DIR)', () => {
  it('answers RENDER_FAILED for a truncated template', async () => {
    const bytes = read('irs-fw9-2018.pdf').slice(0, 5000);
    const err = await fillPdf(
      bytes,
      { fields: [], pageCount: 6, encrypted: false, hasXfa: true },
      { values: {}, flatten: true },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(PdfEngineError);
    expect(err.code).toBe('RENDER_FAILED');
  });

  it('selects the radio kid of an /Opt value by writing its on-state name', async () => {
    const { bytes } = await fill('pdfjs-radio-opt-demo.pdf', {
      values: { fruit: { kind: 'choice', value: 'Cherry' } },
      flatten: false,
    });
    const { context } = await loadPdf(bytes);
    const fruit = context
      .enumerateIndirectObjects()
      .map(([, o]) => o)
      .find((o) => o instanceof PDFDict && o.get(PDFName.of('T'))?.toString() === '(fruit)') as PDFDict;
    expect(fruit.get(PDFName.of('V'))).toBe(PDFName.of('2'));
    const kids = fruit.lookup(PDFName.of('Kids'), PDFArray);
    const states = kids.asArray().map((_, i) => (kids.lookup(i) as PDFDict).get(PDFName.of('AS'))?.toString());
    expect(states).toEqual(['/Off', '/Off', '/2']);
  });

  it('clears /NeedAppearances and drops /XFA', async () => {
    for (const name of ['irs-fw9-2018.pdf', 'libreoffice-form.pdf']) {
      const { bytes } = await fill(name, { values: {}, flatten: false });
      const { catalog } = await loadPdf(bytes);
      const acroForm = catalog.lookup(PDFName.of('AcroForm'), PDFDict);
      expect(acroForm.has(PDFName.of('XFA'))).toBe(false);
      expect(acroForm.has(PDFName.of('NeedAppearances'))).toBe(false);
    }
  });

  it('embeds only a subset of the CJK fallback font', async () => {
    const template = read('china-fund-transaction-application.pdf');
    const analysis = await analyse(template);
    const key = analysis.fields.find((f) => f.type === 'text' && !f.pdfMeta.readOnly)!.pdfMeta.originalName;
    const { bytes } = await fillPdf(template, analysis, {
      values: { [key]: { kind: 'text', text: '東京 Привет' } },
      flatten: true,
    });
    expect(bytes.length - template.length).toBeLessThan(150_000); // the whole font is 10 MB
  });

  it('draws a PNG signature inside the widget and keeps it when flattened', async () => {
    const { bytes, warnings } = await fill('pdflib-sample-form.pdf', {
      values: { 'EMPLOYEE SIGNATURE': { kind: 'image', bytes: makePng(40, 10), format: 'png' } },
      flatten: true,
    });
    expect(warnings).toEqual([]);
    const { context } = await loadPdf(bytes);
    const images = context
      .enumerateIndirectObjects()
      .filter(([, o]) => o instanceof PDFRawStream && o.dict.get(PDFName.of('Subtype')) === PDFName.of('Image'));
    expect(images.length).toBeGreaterThan(0);
  });

  it('puts the watermark on every page', async () => {
    // pdftotext drops diagonal text, so read the appended page content instead.
    const { bytes } = await fill('irs-fw9-2018.pdf', { values: {}, flatten: true, watermark: 'SPECIMEN' });
    const { doc } = await loadPdf(bytes);
    const hex = Buffer.from('SPECIMEN', 'latin1').toString('hex').toUpperCase();
    const pages = doc.getPages();
    expect(pages.length).toBe(6);
    for (const page of pages) {
      const contents = page.node.lookup(PDFName.of('Contents'), PDFArray);
      const last = contents.lookup(contents.size() - 1, PDFRawStream);
      const text = Buffer.from(decodePDFRawStream(last).decode()).toString('latin1');
      expect(text).toMatch(/\/\w+ gs/);
      expect(text.toUpperCase()).toContain(hex);
    }
  });

  it('reports a field it cannot find instead of failing', async () => {
    const { warnings } = await fill('pdfjs-radio-opt-demo.pdf', {
      values: { nope: { kind: 'text', text: 'x' } },
      flatten: false,
    });
    expect(warnings.join('\n')).toMatch(/"nope" is not in the template/);
  });

  describe.skipIf(toolsMissing.length > 0)(
    `checked with qpdf, pdftk and poppler (missing: ${toolsMissing.join(', ') || 'none'})`,
    () => {
      let tmp: string;
      beforeAll(() => {
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fill-behaviour-'));
      });
      afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
      const save = (name: string, bytes: Uint8Array) => {
        const out = path.join(tmp, name);
        fs.writeFileSync(out, bytes);
        return out;
      };

      it('leaves fields that are not in the values untouched and empties cleared ones', async () => {
        const name = 'irs-f1040-2010-prefilled.pdf';
        const before = new Map(
          (await pdftkFields(path.join(dir!, 'pdfs', name))).map((f) => [f.name, f.values.at(-1)]),
        );
        const prefilled = [...before].filter(([, v]) => v && v !== 'Off').map(([k]) => k);
        expect(prefilled.length).toBeGreaterThanOrEqual(2);
        const [cleared, kept] = prefilled;
        const { bytes } = await fill(name, { values: { [cleared]: { kind: 'clear' } }, flatten: false });
        const after = new Map((await pdftkFields(save('clear.pdf', bytes))).map((f) => [f.name, f.values.at(-1)]));
        expect(after.get(kept)).toBe(before.get(kept));
        expect(after.get(cleared) ?? '').toMatch(/^(|Off)$/);
      });

      it('writes a multi-select list box as a /V array', async () => {
        const { bytes } = await fill('pdfjs-form-example-multiselect.pdf', {
          values: { databases: { kind: 'choices', values: ['oracle', 'db2'] } },
          flatten: false,
        });
        const field = (await pdftkFields(save('multi.pdf', bytes))).find((f) => f.name === 'databases');
        expect(field?.values).toEqual(expect.arrayContaining(['oracle', 'db2']));
      });

      it('does not fill read-only fields', async () => {
        const { bytes } = await fill('pdfjs-radio-opt-demo.pdf', {
          values: { result: { kind: 'text', text: 'sneaky' } },
          flatten: true,
        });
        expect(await pdftotext(save('ro.pdf', bytes))).not.toContain('sneaky');
      });

      it('writes an unencrypted, clean file from an AES-encrypted template', async () => {
        const name = 'vitality-rebate-aes-encrypted.pdf';
        const bytes = read(name);
        const analysis = await analyse(bytes);
        const values = Object.fromEntries(
          analysis.fields
            .filter((f) => f.type === 'text')
            .map((f) => [f.pdfMeta.originalName, { kind: 'text' as const, text: 'Łódź 42' }]),
        );
        const out = save('aes.pdf', (await fillPdf(bytes, analysis, { values, flatten: true })).bytes);
        const check = await qpdfCheck(out);
        expect(check.code, check.output).toBe(0);
        expect(check.output).toMatch(/not encrypted/);
        expect(await pdftotext(out)).toContain('Łódź 42');
      });
    },
  );
});
