// A field's value lives on the field: a /V left on one of its widget kids would shadow it in viewers
// that resolve inherited keys from the widget up (pdf.js, pdftk), so a fill removes those, an explicit
// `/V null` too (pdf-lib's `has` says no for it). The fill writes only what changes (fill-context.ts).
import { PDFDocument, PDFName, PDFNull, PDFDict } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';

async function twoWidgetField(kidValue: 'null' | 'string'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  const field = doc.getForm().createTextField('name');
  field.addToPage(page, { x: 20, y: 120, width: 200, height: 24 });
  field.addToPage(page, { x: 20, y: 60, width: 200, height: 24 });
  const kid = field.acroField.getWidgets()[0].dict;
  kid.set(PDFName.of('V'), kidValue === 'null' ? PDFNull : doc.context.obj('stale'));
  return doc.save({ useObjectStreams: false });
}

async function kidsV(bytes: Uint8Array): Promise<(string | undefined)[]> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const field = doc.getForm().getTextField('name');
  return field.acroField.getWidgets().map((w) => w.dict.get(PDFName.of('V'), true)?.toString());
}

describe('a value on a widget kid', () => {
  for (const kidValue of ['null', 'string'] as const) {
    it(`is removed when the field is filled (kid /V ${kidValue})`, async () => {
      const template = await twoWidgetField(kidValue);
      expect((await kidsV(template))[0]).toBeDefined();
      const analysis = await analyse(template);
      const key = analysis.fields[0].pdfMeta.originalName;
      const out = await fillPdf(template, analysis, {
        values: { [key]: { kind: 'text', text: 'Ada' } },
        flatten: false,
      });
      expect(await kidsV(out.bytes)).toEqual([undefined, undefined]);
      const doc = await PDFDocument.load(out.bytes, { updateMetadata: false });
      const parent = doc.getForm().getTextField('name').acroField.dict;
      expect(parent).toBeInstanceOf(PDFDict);
      expect(doc.getForm().getTextField('name').getText()).toBe('Ada');
    });
  }
});
