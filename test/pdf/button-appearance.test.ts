// Checked boxes show a mark in poppler and MuPDF even when the form's own on-appearance is broken
// (empty, or drawn with a font its resources lack): such appearances are redrawn at prepare time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, type PDFNumber, PDFArray } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillValue } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { inkIn, renderGray, type Renderer } from '../helpers/ink.js';
import { hasTool } from '../helpers/pdf-tools.js';

const RECT = [60, 60, 100, 100];
const renderers: Renderer[] = ['poppler', 'mupdf'];
const missing = ['pdftoppm', 'mutool'].filter((t) => !hasTool(t));
const dir = corpusDir();

/** A one-checkbox form whose /Yes appearance is replaced by `content` (with no font resources), or with no /AP at all (null). */
async function brokenCheckbox(content: string | null): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  // Real forms have page content (a page without any is another module's edge case).
  page.drawText('I agree', { x: 110, y: 75, size: 10 });
  const box = doc.getForm().createCheckBox('agree');
  box.addToPage(page, { x: RECT[0], y: RECT[1], width: RECT[2] - RECT[0], height: RECT[3] - RECT[1], borderWidth: 0 });
  const widget = box.acroField.getWidgets()[0];
  const ctx = doc.context;
  if (content === null) {
    widget.dict.delete(PDFName.of('AP'));
    return doc.save({ updateFieldAppearances: false });
  }
  const yes = ctx.register(
    ctx.stream(content, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 40, 40], Resources: {} }),
  );
  const normal = widget.dict.lookup(PDFName.of('AP'), PDFDict).lookup(PDFName.of('N'), PDFDict);
  normal.set(PDFName.of('Yes'), yes);
  // A ZapfDingbats /DR entry that viewers do not use for existing appearance streams.
  const zadb = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'ZapfDingbats' }));
  doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).set(PDFName.of('DR'), ctx.obj({ Font: { ZaDb: zadb } }));
  return doc.save({ updateFieldAppearances: false });
}

async function fillFlat(bytes: Uint8Array, values: Record<string, FillValue>, out: string): Promise<void> {
  const result = await fillPdf(bytes, await analyse(bytes), { values, flatten: true });
  fs.writeFileSync(out, result.bytes);
}

describe.skipIf(missing.length > 0)(
  `broken checkbox and radio on-appearances (missing: ${missing.join(', ') || 'none'})`,
  () => {
    let tmp: string;
    beforeAll(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'button-ap-'));
    });
    afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

    const cases: [string, string | null][] = [
      ['no appearance at all', null],
      ['an empty on-appearance', ''],
      [
        'an on-appearance showing "4" with a ZapfDingbats font its resources lack',
        'q BT 0 g /ZaDb 0 Tf 8 8 Td (4) Tj ET Q',
      ],
    ];
    for (const [what, content] of cases) {
      for (const renderer of renderers) {
        it(`shows a check mark in ${renderer} for a checked box with ${what}`, async () => {
          const out = path.join(tmp, `${renderer}-${what.length}.pdf`);
          await fillFlat(await brokenCheckbox(content), { agree: { kind: 'check', checked: true } }, out);
          expect(inkIn(await renderGray(out, 1, renderer), RECT, 4)).toBeGreaterThan(40);
        });
      }
    }

    it('leaves an unchecked box with a broken on-appearance blank', async () => {
      const out = path.join(tmp, 'unchecked.pdf');
      await fillFlat(await brokenCheckbox(''), { agree: { kind: 'check', checked: false } }, out);
      expect(inkIn(await renderGray(out, 1, 'poppler'), RECT, 4)).toBe(0);
    });

    it('shows a dot in poppler for a selected radio button whose on-appearance is empty', async () => {
      const doc = await PDFDocument.create();
      const page = doc.addPage([200, 200]);
      page.drawText('Pick one', { x: 110, y: 75, size: 10 });
      const group = doc.getForm().createRadioGroup('pick');
      group.addOptionToPage('a', page, { x: RECT[0], y: RECT[1], width: 40, height: 40, borderWidth: 0 });
      group.addOptionToPage('b', page, { x: RECT[0], y: 10, width: 40, height: 40, borderWidth: 0 });
      const widget = group.acroField.getWidgets()[0];
      const normal = widget.dict.lookup(PDFName.of('AP'), PDFDict).lookup(PDFName.of('N'), PDFDict);
      const state = normal.keys().find((k) => k.decodeText() !== 'Off')!;
      normal.set(
        state,
        doc.context.register(doc.context.stream('', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 40, 40] })),
      );
      const bytes = await doc.save({ updateFieldAppearances: false });
      const out = path.join(tmp, 'radio.pdf');
      await fillFlat(bytes, { pick: { kind: 'choice', value: 'a' } }, out);
      expect(inkIn(await renderGray(out, 1, 'poppler'), RECT, 4)).toBeGreaterThan(40);
    });

    describe.skipIf(!dir)('scribus-form.pdf (needs ../shared/corpus or CORPUS_DIR)', () => {
      for (const renderer of renderers) {
        it(`shows ink in every checked checkbox in ${renderer}`, async () => {
          const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', 'scribus-form.pdf')));
          const analysis = await analyse(bytes);
          const boxes = analysis.fields.filter((f) => f.type === 'checkbox');
          expect(boxes.length).toBeGreaterThan(0);
          const out = path.join(tmp, `scribus-${renderer}.pdf`);
          await fillFlat(
            bytes,
            Object.fromEntries(
              boxes.map((f) => [f.pdfMeta.originalName, { kind: 'check', checked: true } as FillValue]),
            ),
            out,
          );
          // Widget rectangles from the template itself (the flattened output has no widgets left).
          const doc = await PDFDocument.load(bytes);
          const rects = doc
            .getForm()
            .getFields()
            .filter((f) => boxes.some((b) => b.pdfMeta.originalName === f.getName()))
            .map((f) =>
              f.acroField
                .getWidgets()[0]
                .dict.lookup(PDFName.of('Rect'), PDFArray)
                .asArray()
                .map((n) => (n as PDFNumber).asNumber()),
            );
          expect(rects.length).toBe(boxes.length);
          const img = await renderGray(out, 1, renderer);
          // Inset past the 1 pt border: only the mark counts.
          const blank = rects.filter((r) => inkIn(img, r, 2.5) < 4);
          expect(blank).toEqual([]);
        });
      }
    });
  },
);
