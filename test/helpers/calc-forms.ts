// Forms with scripts, built with pdf-lib for the script runtime's tests (the corpus is never edited): text
// fields (or check boxes) with /AA keystroke, format, validate and calculate actions, an optional /CO
// calculation order and document-level scripts in /Names /JavaScript.
import { PDFDocument, PDFHexString, PDFName, type PDFDict, type PDFRef } from '@cantoo/pdf-lib';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { TemplateAnalysis } from '../../src/pdf/types.js';

export interface CalcField {
  name: string;
  /** /V saved in the template */
  value?: string;
  readOnly?: boolean;
  checkbox?: boolean;
  /** JavaScript of the /AA actions: keystroke, format, validate, calculate */
  K?: string;
  F?: string;
  V?: string;
  C?: string;
}

export interface CalcFormSpec {
  fields: CalcField[];
  /** /AcroForm /CO, by field name (default: no /CO) */
  order?: string[];
  /** document-level scripts, by name */
  docScripts?: Record<string, string>;
}

export interface CalcForm {
  bytes: Uint8Array;
  analysis: TemplateAnalysis;
}

const js = (doc: PDFDocument, code: string) => doc.context.obj({ S: 'JavaScript', JS: PDFHexString.fromText(code) });

/** One page, one row per field (200 × 20 pt boxes, Helvetica 10), built as the spec says. */
export async function buildCalcForm(spec: CalcFormSpec): Promise<CalcForm> {
  const doc = await PDFDocument.create();
  const rows = Math.max(1, spec.fields.length);
  const page = doc.addPage([400, Math.max(300, 40 + rows * 26)]);
  const form = doc.getForm();
  const refs = new Map<string, PDFRef>();
  spec.fields.forEach((f, i) => {
    const y = page.getHeight() - 40 - i * 26;
    page.drawText(f.name, { x: 20, y: y + 5, size: 8 });
    const box = { x: 150, y, width: 200, height: 20 };
    let dict: PDFDict;
    if (f.checkbox) {
      const cb = form.createCheckBox(f.name);
      cb.addToPage(page, { ...box, width: 20 });
      if (f.value === 'Yes') cb.check();
      dict = cb.acroField.dict;
      refs.set(f.name, cb.acroField.ref);
    } else {
      const tf = form.createTextField(f.name);
      tf.addToPage(page, box);
      tf.setFontSize(10);
      if (f.value) tf.setText(f.value);
      dict = tf.acroField.dict;
      refs.set(f.name, tf.acroField.ref);
    }
    if (f.readOnly) dict.set(PDFName.of('Ff'), doc.context.obj(1 | (dict.lookup(PDFName.of('Ff'))?.valueOf() as number ?? 0)));
    const aa: Record<string, unknown> = {};
    for (const key of ['K', 'F', 'V', 'C'] as const) if (f[key]) aa[key] = js(doc, f[key]!);
    if (Object.keys(aa).length) dict.set(PDFName.of('AA'), doc.context.obj(aa as never));
  });
  const acroForm = form.acroForm.dict;
  if (spec.order) acroForm.set(PDFName.of('CO'), doc.context.obj(spec.order.map((n) => refs.get(n)!)));
  if (spec.docScripts) {
    const names: unknown[] = [];
    for (const [name, code] of Object.entries(spec.docScripts)) names.push(PDFHexString.fromText(name), js(doc, code));
    doc.catalog.set(PDFName.of('Names'), doc.context.obj({ JavaScript: { Names: names } } as never));
  }
  const bytes = await doc.save({ updateFieldAppearances: true });
  return { bytes, analysis: await analyse(bytes) };
}

/** The PDF full name → schema key of a built form's analysis (they match for these simple names). */
export function key(form: CalcForm, pdfName: string): string {
  return form.analysis.fields.find((f) => f.pdfMeta.originalName === pdfName)?.name ?? pdfName;
}
