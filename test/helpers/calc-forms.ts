// Forms with scripts, built with pdf-lib for the script runtime's tests (the corpus is never edited): text
// fields (or check boxes) with /AA keystroke, format, validate and calculate actions, an optional /CO
// calculation order and document-level scripts in /Names /JavaScript.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFString, type PDFDict, type PDFRef } from '@cantoo/pdf-lib';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import type { FillRequest, FillResult, FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { pdftotext } from './pdf-tools.js';

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
    if (f.readOnly)
      dict.set(PDFName.of('Ff'), doc.context.obj(1 | ((dict.lookup(PDFName.of('Ff'))?.valueOf() as number) ?? 0)));
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

/** A render of a built form read back: every text field's /V (unflattened) and the flattened page's text. */
export interface CalcRender {
  result: FillResult;
  /** /V of each text field, by PDF name ('' when empty) */
  v: Record<string, string>;
  /** pdftotext of the same render flattened, spaces squeezed */
  text: string;
}

/** Text values: strings become `{ kind: 'text' }`. */
export type CalcValues = Record<string, string | FillValue>;

export function fillValues(values: CalcValues): Record<string, FillValue> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? { kind: 'text', text: v } : v]),
  );
}

/** Fills `form` twice (unflattened for /V, flattened for what is drawn) with the cache's sandbox. */
export async function renderCalc(
  cache: TemplateCache,
  form: CalcForm,
  values: CalcValues,
  extra: Partial<FillRequest> = {},
): Promise<CalcRender> {
  const request = { values: fillValues(values), flatten: false, ...extra };
  const result = await fillPdf(form.bytes, form.analysis, request, undefined, cache);
  const doc = await PDFDocument.load(result.bytes);
  const v: Record<string, string> = {};
  for (const f of doc.getForm().getFields()) {
    const raw = f.acroField.dict.lookup(PDFName.of('V'));
    v[f.getName()] = raw instanceof PDFHexString || raw instanceof PDFString ? raw.decodeText() : '';
  }
  const flat = await fillPdf(form.bytes, form.analysis, { ...request, flatten: true }, undefined, cache);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calc-'));
  try {
    fs.writeFileSync(path.join(dir, 'flat.pdf'), flat.bytes);
    const text = (await pdftotext(path.join(dir, 'flat.pdf'))).replace(/\s+/g, ' ');
    return { result, v, text };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
