// detectFields() on small PDFs built here: each kind of printed field is found where it is drawn, with
// its type, caption and key; a scan is reported as such; a form's own widgets are not detected again;
// the result becomes real AcroForm fields that our own analyser reads back.
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { detectFields } from '../../src/pdf/detect/detect.js';
import { detectForm } from '../../src/pdf/detect/detect-form.js';
import { halfForm, printedForm, scannedPage, taxStyleForm } from '../helpers/flat-forms.js';

const near = (a: number[], b: number[], tol = 3) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

describe('detectFields on built forms', () => {
  it('finds lines, a box, a check box, a comb, a date and a signature line, with captions and keys', async () => {
    const r = await detectFields(await printedForm());
    expect(r.rasterPages).toEqual([]);
    expect(r.warnings).toEqual([]);
    const by = Object.fromEntries(r.detections.map((d) => [d.key, d]));
    expect(Object.keys(by).sort()).toEqual(
      ['adresse', 'code_postal', 'date_de_naissance', 'j_accepte_les_conditions', 'nom', 'signature', 'ville'].sort(),
    );
    expect(by.nom).toMatchObject({ type: 'text', page: 1, label: 'Nom' });
    // the line is at 720: the field takes it in (its bottom half a point under it), as widgets on lines do
    expect(by.nom.rect[1]).toBeGreaterThanOrEqual(719);
    expect(by.nom.rect[1]).toBeLessThan(720);
    expect(by.adresse).toMatchObject({ type: 'multiline', label: 'Adresse' });
    expect(near(by.adresse.rect, [60, 590, 360, 650])).toBe(true);
    expect(by.j_accepte_les_conditions).toMatchObject({ type: 'checkbox' });
    expect(near(by.j_accepte_les_conditions.rect, [60, 550, 70, 560])).toBe(true);
    expect(by.code_postal).toMatchObject({ type: 'comb', cells: 5 });
    expect(near(by.code_postal.rect, [130, 508, 210, 526])).toBe(true);
    expect(by.date_de_naissance).toMatchObject({ type: 'date', dateFormat: 'dd/mm/yyyy' });
    expect(by.signature).toMatchObject({ type: 'signature' });
    for (const d of r.detections) {
      expect(d.confidence).toBeGreaterThan(0);
      expect(d.confidence).toBeLessThanOrEqual(1);
    }
    // reading order: top to bottom
    expect(r.detections[0].key).toBe('nom');
  });

  it('reads the ways tax and coloured forms draw: white boxes on a tint, cents, open boxes, numbered options, tables', async () => {
    const r = await detectFields(await taxStyleForm());
    const at = (rect: number[]) => r.detections.filter((d) => near(d.rect, rect));
    // a white box with no border on a tinted ground
    expect(at([60, 700, 260, 720]).map((d) => d.type)).toEqual(['text']);
    // the dollars and the narrow cents after them
    expect(at([320, 540, 392, 552]).map((d) => d.type)).toEqual(['text']);
    expect(at([392, 540, 414, 552]).map((d) => d.type)).toEqual(['text']);
    // the boxes open on top, closed at their sides' height: dollars and cents
    expect(at([220, 500, 300, 512]).map((d) => d.type)).toEqual(['text']);
    expect(at([300, 500, 322, 512]).map((d) => d.type)).toEqual(['text']);
    // "1 Pass" over "2 Fail": two check boxes, their options named
    expect(at([60, 440, 72, 450]).map((d) => d.type)).toEqual(['checkbox']);
    expect(at([60, 430, 72, 440]).map((d) => d.type)).toEqual(['checkbox']);
    // the table: its empty box is a field; no field after the row's name "Alberta", nor under the heading
    // of the empty box's column
    expect(at([160, 365, 260, 380]).map((d) => d.type)).toEqual(['text']);
    const inside = (a: number[], b: number[]) =>
      a[0] >= b[0] - 1 && a[1] >= b[1] - 1 && a[2] <= b[2] + 1 && a[3] <= b[3] + 1;
    for (const heading of [
      [60, 365, 160, 380],
      [160, 380, 260, 410],
    ])
      expect(r.detections.filter((d) => inside(d.rect, heading))).toEqual([]);
  });

  it('reports an image-only page as scanned and detects nothing there', async () => {
    const r = await detectFields(await scannedPage());
    expect(r.detections).toEqual([]);
    expect(r.rasterPages).toEqual([1]);
  });

  it("skips what a form's own widgets cover and does not reuse their keys", async () => {
    const bytes = await halfForm();
    const analysis = await analyse(bytes);
    const widgets = analysis.fields.map((f) => ({ page: f.pdfMeta.page, rect: f.pdfMeta.rect! }));
    const all = await detectFields(bytes);
    expect(all.detections.map((d) => d.key).sort()).toEqual(['employer', 'name']);
    const missed = await detectFields(bytes, { widgets, keys: ['name', 'employer'] });
    expect(missed.detections).toHaveLength(1);
    expect(missed.detections[0]).toMatchObject({ label: 'Employer', key: 'employer_2' });
  });

  it('turns the detections into real AcroForm fields the analyser reads back', async () => {
    const { result, bytes } = await detectForm(await printedForm());
    expect(bytes).not.toBeNull();
    const analysis = await analyse(bytes!);
    const fields = Object.fromEntries(analysis.fields.map((f) => [f.pdfMeta.originalName, f]));
    expect(Object.keys(fields).sort()).toEqual(result.detections.map((d) => d.key).sort());
    expect(fields.code_postal).toMatchObject({ type: 'text', maxLength: 5 });
    expect(fields.code_postal.detail.comb).toBe(true);
    expect(fields.j_accepte_les_conditions.type).toBe('checkbox');
    expect(fields.date_de_naissance.type).toBe('date');
    expect(fields.signature.type).toBe('signature');
    expect(fields.adresse.detail.multiline).toBe(true);
    expect(near(fields.nom.pdfMeta.rect!, result.detections.find((d) => d.key === 'nom')!.rect, 0.01)).toBe(true);
  });

  it('refuses what pdf.js cannot open as INVALID_PDF', async () => {
    await expect(detectFields(new TextEncoder().encode('not a pdf at all'))).rejects.toMatchObject({
      name: 'PdfEngineError',
      code: 'INVALID_PDF',
    });
  });
});
