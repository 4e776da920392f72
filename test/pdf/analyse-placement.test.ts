// Labels (/TU), widget rectangles and the editable flag on every corpus form, checked against pdf.js
// (an independent reader) and the manifest's qpdf-derived field flags.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { Rect, TemplateAnalysis, WidgetPlacement } from '../../src/pdf/types.js';
import { corpusDir, corpusFiles, manifestEntry } from '../helpers/corpus.js';
import { readWithPdfjs } from '../helpers/pdfjs.js';

const dir = corpusDir();
const files = corpusFiles().filter((f) => manifestEntry(f)?.validAcroForm && manifestEntry(f)!.fieldCount > 0);

/** Pairs each placement with a pdf.js widget on the same page within 0.01 pt; what is left unpaired. */
function unpaired(placements: WidgetPlacement[], widgets: { page: number; rect: number[] }[]) {
  const left = [...widgets];
  const missing = placements.filter((p) => {
    const i = left.findIndex((w) => w.page + 1 === p.page && w.rect.every((v, k) => Math.abs(v - p.rect[k]) <= 0.01));
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
  return { missing, extra: left };
}

describe.skipIf(!dir)('analyse(): labels and placements on the corpus', () => {
  const labelled: string[] = [];
  for (const file of files) {
    const base = path.basename(file);
    it(`${base}: rects, widgets and labels agree with pdf.js`, async () => {
      const bytes = fs.readFileSync(file);
      let analysis: TemplateAnalysis;
      try {
        analysis = await analyse(bytes);
      } catch {
        return; // files the analyser refuses are covered by analyse-corpus.test.ts
      }
      const pdfjs = await readWithPdfjs(bytes);
      for (const f of analysis.fields) {
        const where = `${base} ${f.pdfMeta.originalName}`;
        const rect = f.pdfMeta.rect as Rect;
        expect(rect, where).toHaveLength(4);
        expect(rect[0] <= rect[2] && rect[1] <= rect[3], where).toBe(true);
        const placements: WidgetPlacement[] = f.pdfMeta.widgets ?? [{ page: f.pdfMeta.page, rect }];
        if (f.pdfMeta.widgets) {
          expect(f.pdfMeta.widgets.length, where).toBeGreaterThan(1);
          expect(f.pdfMeta.widgets[0], where).toEqual({ page: f.pdfMeta.page, rect });
        }
        // pdf.js lists widgets in page /Annots order, the analysis in /Kids order: compare as multisets.
        const seen = pdfjs.widgets.filter((w) => w.fieldName === f.pdfMeta.originalName);
        expect(unpaired(placements, seen), where).toEqual({ missing: [], extra: [] });

        expect(
          f.label === null || (typeof f.label === 'string' && f.label === f.label.trim() && f.label !== ''),
          where,
        ).toBe(true);
        const tooltip = seen.find((w) => w.alternativeText.trim() !== '')?.alternativeText.trim();
        // a tooltip that names the field is its label; one with no letter ("[1]", "20") or "undefined" only
        // numbers it, and the caption on the page (or nothing) is the label instead (docs/decisions.md)
        const naming = tooltip !== undefined && /\p{L}/u.test(tooltip) && !/^(?:undefined|null)$/i.test(tooltip);
        if (naming) expect([f.label, f.labelSource], where).toEqual([tooltip, 'tooltip']);
        if (f.label) labelled.push(where);

        const m = manifestEntry(file)!.fields.find((x) => x.fullName === f.pdfMeta.originalName)!;
        if (m.kind === 'combo' && m.flags.edit) expect(f.pdfMeta.editable, where).toBe(true);
        else expect('editable' in f.pdfMeta, where).toBe(false);
      }
    });
  }

  it('finds tooltips where the corpus has them (the label check above is not vacuous)', () => {
    expect(labelled.length).toBeGreaterThan(1000);
    expect(labelled.some((w) => w.startsWith('irs-f940b-2010.pdf'))).toBe(true);
  });
});
