// combineRenders on real renders of corpus forms, judged by independent readers: qpdf --check,
// pdftk dump_data_fields, pdf.js getFieldObjects, pdftotext per page and poppler's and MuPDF's drawing.
// Interactive copies keep their own values under "name#n" (n = the item's position); flattened
// items bring pages only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { combineRenders } from '../../src/pdf/merge/combine.js';
import type { FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { darkPixels, renderPages, type Renderer } from '../helpers/ink.js';

// Both drawing engines of the reader matrix (test/pdf/reader-matrix.test.ts).
const RENDERERS: Renderer[] = ['poppler', 'mupdf'];
import { pdfjsValue, readWithPdfjs } from '../helpers/pdfjs.js';
import { hasTool, pdftkFields, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';

const dir = corpusDir();
const tools = ['qpdf', 'pdftk', 'pdftotext', 'pdftoppm'].every(hasTool);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'combine-'));

interface Item {
  file: string;
  flattened: boolean;
  analysis: TemplateAnalysis;
  values: Record<string, FillValue>;
  bytes: Uint8Array;
}

/**
 * Values that differ per copy: text "K<n>v<i>" ("<n><i>" cut to a shorter /MaxLen), boxes checked in odd copies only,
 * radios and dropdowns on option n-1 (wrapping). Read-only and signature fields are left alone.
 */
function valuesFor(analysis: TemplateAnalysis, n: number): Record<string, FillValue> {
  const values: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly || f.type === 'signature') return;
    const key = f.pdfMeta.originalName;
    if (f.type === 'checkbox') values[key] = { kind: 'check', checked: n % 2 === 1 };
    else if (f.type === 'radio' || f.type === 'dropdown') {
      const options = f.options?.filter((o) => o.trim() !== '') ?? [];
      if (options.length > 0) values[key] = { kind: 'choice', value: options[(n - 1) % options.length] };
    } else {
      const text = `K${n}v${i}`;
      // A short /MaxLen still starts with the copy number, so copies never read alike.
      values[key] = {
        kind: 'text',
        text: f.maxLength && f.maxLength < text.length ? `${n}${i}`.slice(0, f.maxLength) : text,
      };
    }
  });
  return values;
}

async function render(file: string, n: number, flattened: boolean): Promise<Item> {
  const template = fs.readFileSync(path.join(dir!, 'pdfs', file));
  const analysis = await analyse(template);
  const values = valuesFor(analysis, n);
  const { bytes } = await fillPdf(template, analysis, { values, flatten: flattened });
  return { file, flattened, analysis, values, bytes };
}

/** The name a field of item n has in the combined file: its first partial name suffixed "#n". */
const renamed = (originalName: string, n: number) => {
  const [first, ...rest] = originalName.split('.');
  return [`${first}#${n}`, ...rest].join('.');
};

const squash = (s: string) => s.replace(/\s+/g, '');

/** Text values of an item that are long enough to be told apart from other copies' on a page. */
function textValues(item: Item): string[] {
  return Object.values(item.values)
    .filter((v): v is { kind: 'text'; text: string } => v.kind === 'text')
    .map((v) => v.text)
    .filter((t) => t.length >= 4);
}

/** Pages (1-based, inclusive) each item occupies in the combined file. */
function pageRanges(items: Item[]): [number, number][] {
  let next = 1;
  return items.map((item) => {
    const range: [number, number] = [next, next + item.analysis.pageCount - 1];
    next += item.analysis.pageCount;
    return range;
  });
}

async function combineToFile(items: Item[], name: string): Promise<string> {
  const out = path.join(tmp, name);
  fs.writeFileSync(out, await combineRenders(items.map(({ bytes, flattened }) => ({ bytes, flattened }))));
  return out;
}

async function pageTexts(file: string, pages: number): Promise<string[]> {
  const texts: string[] = [];
  for (let p = 1; p <= pages; p++) {
    const { execFileSync } = await import('node:child_process');
    texts.push(execFileSync('pdftotext', ['-enc', 'UTF-8', '-f', String(p), '-l', String(p), file, '-']).toString());
  }
  return texts;
}

describe.skipIf(!dir || !tools)('combineRenders', () => {
  describe('three interactive copies of one form with different values', () => {
    const form = 'pdflib-sample-form.pdf';
    let items: Item[];
    let file: string;

    beforeAll(async () => {
      items = [await render(form, 1, false), await render(form, 2, false), await render(form, 3, false)];
      file = await combineToFile(items, 'same-form.pdf');
    }, 60_000);

    it('is a valid PDF with every page of every copy', async () => {
      const check = await qpdfCheck(file);
      expect(check.code).toBe(0);
      const doc = await PDFDocument.load(fs.readFileSync(file));
      expect(doc.getPageCount()).toBe(items.reduce((sum, item) => sum + item.analysis.pageCount, 0));
    });

    it('keeps every copy\'s values under "name#n" in pdftk, distinct from the other copies', async () => {
      const fields = new Map((await pdftkFields(file)).map((f) => [f.name, f]));
      const seen = new Map<string, string[]>();
      items.forEach((item, index) => {
        const n = index + 1;
        for (const field of item.analysis.fields) {
          const value = item.values[field.pdfMeta.originalName];
          if (!value) continue;
          const found = fields.get(renamed(field.pdfMeta.originalName, n));
          expect(found, `${field.pdfMeta.originalName} of copy ${n}`).toBeDefined();
          const shown = found!.values.at(-1) ?? '';
          if (value.kind === 'text') expect(shown).toBe(value.text);
          if (value.kind === 'check') expect(shown !== 'Off' && shown !== '').toBe(value.checked);
          if (value.kind === 'choice') expect(shown).toBe(value.value);
          seen.set(field.pdfMeta.originalName, [...(seen.get(field.pdfMeta.originalName) ?? []), shown]);
        }
      });
      // Every text field reads three different values, radios differ between copy 1 and 2.
      for (const field of items[0].analysis.fields) {
        const shown = seen.get(field.pdfMeta.originalName);
        if (field.type === 'text' && shown) expect(new Set(shown).size).toBe(3);
        if (field.type === 'radio' && shown) expect(shown[0]).not.toBe(shown[1]);
      }
      // No field keeps its template name: each one belongs to exactly one copy.
      for (const name of fields.keys()) expect(name).toMatch(/^[^.]+#[123](\.|$)/);
    });

    it('shows the same values through pdf.js (text, boxes, radios), with NeedAppearances off', async () => {
      const bytes = fs.readFileSync(file);
      const reading = await readWithPdfjs(bytes);
      items.forEach((item, index) => {
        for (const field of item.analysis.fields) {
          const value = item.values[field.pdfMeta.originalName];
          if (!value) continue;
          const entries = reading.fields?.[renamed(field.pdfMeta.originalName, index + 1)];
          expect(entries, field.pdfMeta.originalName).toBeDefined();
          const shown = pdfjsValue(entries!);
          if (value.kind === 'text') expect(shown).toBe(value.text);
          if (value.kind === 'check') expect(shown !== 'Off' && shown !== undefined).toBe(value.checked);
          if (value.kind === 'choice') expect(shown).toBe(value.value);
        }
      });
      expect(Buffer.from(bytes).toString('latin1')).toMatch(/\/NeedAppearances false/);
    });

    it("puts each copy's values on its own pages, in order", async () => {
      const texts = (await pageTexts(file, 3)).map(squash);
      items.forEach((item, index) => {
        for (const text of textValues(item)) {
          expect(texts[index], `copy ${index + 1}`).toContain(text);
          for (const other of texts.filter((_, i) => i !== index)) expect(other).not.toContain(text);
        }
      });
    });

    it.each(RENDERERS)('draws every copy as its own render draws (%s)', async (renderer) => {
      const combined = await renderPages(renderer, file, path.join(tmp, `same-ink-${renderer}`), { dpi: 50 });
      for (const [index, item] of items.entries()) {
        const single = path.join(tmp, `same-${index}.pdf`);
        fs.writeFileSync(single, item.bytes);
        const alone = await renderPages(renderer, single, path.join(tmp, `same-ink-${renderer}-${index}`), {
          dpi: 50,
        });
        expect(darkPixels(combined[index])).toBe(darkPixels(alone[0]));
      }
    });
  });

  describe('a mixed set: flattened and interactive items of different templates', () => {
    let items: Item[];
    let file: string;

    beforeAll(async () => {
      items = [
        await render('irs-fw9-2018.pdf', 1, true),
        await render('pdflib-sample-form.pdf', 2, false),
        await render('irs-fw4-2009.pdf', 3, false),
        await render('pdfjs-radio-opt-demo.pdf', 4, true),
        await render('pdflib-sample-form.pdf', 5, true),
      ];
      file = await combineToFile(items, 'mixed.pdf');
    }, 60_000);

    it('has every page of every item, in order, and passes qpdf --check', async () => {
      const check = await qpdfCheck(file);
      expect(check.code).toBe(0);
      const pages = items.reduce((sum, item) => sum + item.analysis.pageCount, 0);
      expect((await PDFDocument.load(fs.readFileSync(file))).getPageCount()).toBe(pages);
      const texts = (await pageTexts(file, pages)).map(squash);
      const ranges = pageRanges(items);
      items.forEach((item, index) => {
        const [from, to] = ranges[index];
        const own = texts.slice(from - 1, to).join('');
        for (const text of textValues(item)) expect(own, `${item.file} (item ${index + 1})`).toContain(text);
      });
    });

    it('lists the fields of the interactive items only, renamed for their position', async () => {
      const fields = await pdftkFields(file);
      const suffixes = new Set(fields.map((f) => /#(\d+)/.exec(f.name)?.[1]));
      expect([...suffixes].sort()).toEqual(['2', '3']);
      const byName = new Map(fields.map((f) => [f.name, f]));
      for (const index of [1, 2]) {
        const item = items[index];
        for (const field of item.analysis.fields) {
          const value = item.values[field.pdfMeta.originalName];
          if (value?.kind !== 'text') continue;
          expect(byName.get(renamed(field.pdfMeta.originalName, index + 1))?.values.at(-1)).toBe(value.text);
        }
      }
      const reading = await readWithPdfjs(fs.readFileSync(file));
      const names = Object.keys(reading.fields ?? {});
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((name) => /#[23](\.|$)/.test(name))).toBe(true);
    });

    it.each(RENDERERS)('draws the flattened and interactive pages (%s)', async (renderer) => {
      const combined = await renderPages(renderer, file, path.join(tmp, `mixed-ink-${renderer}`), { dpi: 50 });
      const ranges = pageRanges(items);
      for (const [index, item] of items.entries()) {
        const single = path.join(tmp, `mixed-${index}.pdf`);
        fs.writeFileSync(single, item.bytes);
        const alone = await renderPages(renderer, single, path.join(tmp, `mixed-ink-${renderer}-${index}`), {
          dpi: 50,
        });
        const [from] = ranges[index];
        for (const [p, page] of alone.entries()) expect(darkPixels(combined[from - 1 + p])).toBe(darkPixels(page));
      }
    });
  });

  it('writes identical page content once but gives every copy its own appearance streams', async () => {
    const item = await render('pdflib-sample-form.pdf', 1, false);
    const bytes = await combineRenders([item, item, item].map(({ bytes: b }) => ({ bytes: b, flattened: false })));
    // Against one copy combined alone (render outputs use object streams, combined files do not): each
    // further copy adds its fields and appearances (~0.47 of one copy), not its page content (~2.5x).
    const one = await combineRenders([{ bytes: item.bytes, flattened: false }]);
    expect(bytes.length).toBeLessThan(one.length * 2.2);
    const out = await PDFDocument.load(bytes);
    const contents = out.getPages().map((p) => String(p.node.get(PDFName.of('Contents'))));
    expect(new Set(contents).size).toBe(1);
    const form = out.getForm();
    const apRefs = [1, 2, 3].map((n) => {
      const widget = form.getTextField(`Name_Last#${n}`).acroField.getWidgets()[0];
      return String(widget.dict.lookup(PDFName.of('AP'), PDFDict).get(PDFName.of('N')));
    });
    expect(new Set(apRefs).size).toBe(3);
  });

  it('renames a default-resource font two items use for different fonts, in the /DA that names it', async () => {
    // Two one-field forms whose /DR both call their font /F1: Helvetica in one, Courier in the other.
    const make = async (standardFont: StandardFonts, value: string) => {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(standardFont);
      const field = doc.getForm().createTextField('name');
      field.addToPage(doc.addPage([300, 200]), { x: 20, y: 100, width: 200, height: 30, font });
      field.setText(value);
      field.updateAppearances(font);
      doc.catalog.getOrCreateAcroForm().dict.set(PDFName.of('DR'), doc.context.obj({ Font: { F1: font.ref } }));
      field.acroField.setDefaultAppearance('/F1 12 Tf 0 g');
      return doc.save();
    };
    const bytes = await combineRenders([
      { bytes: await make(StandardFonts.Helvetica, 'first'), flattened: false },
      { bytes: await make(StandardFonts.Courier, 'second'), flattened: false },
    ]);
    const out = await PDFDocument.load(bytes);
    const dr = out.catalog.getOrCreateAcroForm().dict.lookup(PDFName.of('DR'), PDFDict);
    const fonts = dr.lookup(PDFName.of('Font'), PDFDict);
    const baseFont = (name: string) => fonts.lookup(PDFName.of(name), PDFDict).lookup(PDFName.of('BaseFont'));
    expect(String(baseFont('F1'))).toBe('/Helvetica');
    expect(String(baseFont('F1_2'))).toBe('/Courier');
    const das = Object.fromEntries(
      out
        .getForm()
        .getFields()
        .map((f) => [f.getName(), f.acroField.getDefaultAppearance()]),
    );
    expect(das).toEqual({ 'name#1': '/F1 12 Tf 0 g', 'name#2': '/F1_2 12 Tf 0 g' });
    const file = path.join(tmp, 'dr.pdf');
    fs.writeFileSync(file, bytes);
    expect((await pdftkFields(file)).map((f) => [f.name, f.values.at(-1)])).toEqual([
      ['name#1', 'first'],
      ['name#2', 'second'],
    ]);
    const text = squash(await pdftotext(file));
    expect(text.indexOf('first')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('second')).toBeGreaterThan(text.indexOf('first'));
  });
});
