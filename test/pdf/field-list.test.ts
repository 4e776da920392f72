// Forms whose /AcroForm /Fields misses fields (widgets only pages reach, kids listed instead of
// their field): the unflattened output lists every field for readers that walk /Fields (pdftk).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir, loadManifest, type ManifestFile } from '../helpers/corpus.js';
import { hasTool, pdftkCannotReport, pdftkFields } from '../helpers/pdf-tools.js';

const dir = corpusDir();

/** Manifest forms with fields that /Fields does not reach (as the manifest's own tools judged). */
function unreachable(f: ManifestFile): boolean {
  const cross = f.crossCheck as { namesOnlyInQpdf?: string[] } | undefined;
  return f.validAcroForm && (f.fields.some((x) => !x.inAcroFormFields) || (cross?.namesOnlyInQpdf?.length ?? 0) > 0);
}
const forms = dir ? loadManifest().files.filter(unreachable) : [];

/** A value for every writable field: text, checked boxes, the last option of radios. */
function values(analysis: TemplateAnalysis): Record<string, FillValue> {
  const out: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly) return;
    if (f.type === 'checkbox') out[f.pdfMeta.originalName] = { kind: 'check', checked: true };
    else if (f.type === 'radio' || f.type === 'dropdown') {
      const last = f.options?.filter((o) => o.trim() !== '').at(-1);
      if (last !== undefined) out[f.pdfMeta.originalName] = { kind: 'choice', value: last };
    } else if (f.type !== 'signature') out[f.pdfMeta.originalName] = { kind: 'text', text: `V${i}` };
  });
  return out;
}

describe.skipIf(!dir || !hasTool('pdftk'))('fields missing from /AcroForm /Fields (needs the corpus and pdftk)', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'field-list-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('finds such forms in the manifest', () => {
    expect(forms.length).toBeGreaterThan(0);
  });

  for (const entry of forms) {
    const name = path.basename(entry.file);
    describe(name, () => {
      let bytes: Uint8Array;
      let analysis: TemplateAnalysis;
      let out: string;
      let written: Record<string, FillValue>;
      beforeAll(async () => {
        bytes = new Uint8Array(fs.readFileSync(path.join(dir!, entry.file)));
        analysis = await analyse(bytes);
        written = values(analysis);
        out = path.join(tmp, name);
        fs.writeFileSync(out, (await fillPdf(bytes, analysis, { values: written, flatten: false })).bytes);
      });

      it('lists every field with the value written in pdftk when not flattened', async () => {
        const got = new Map((await pdftkFields(out)).map((f) => [f.name, f.values.at(-1)]));
        const wrong: string[] = [];
        for (const f of analysis.fields) {
          const key = f.pdfMeta.originalName;
          if (!got.has(key)) {
            wrong.push(`${key}: not listed`);
            continue;
          }
          const v = written[key];
          const seen = got.get(key);
          const ok =
            v === undefined
              ? true
              : v.kind === 'text'
                ? seen === v.text
                : v.kind === 'check'
                  ? !!seen && seen !== 'Off'
                  : v.kind === 'choice' && f.type === 'radio'
                    ? (!!seen && seen !== 'Off') || pdftkCannotReport(f, v.value)
                    : v.kind === 'choice'
                      ? seen === v.value
                      : true;
          if (!ok) wrong.push(`${key}: ${JSON.stringify(v)} -> ${JSON.stringify(seen)}`);
        }
        expect(wrong).toEqual([]);
      });

      it('keeps the fields the analysis reports (names and types) in the unflattened output', async () => {
        const again = await analyse(new Uint8Array(fs.readFileSync(out)));
        const shape = (a: TemplateAnalysis) => a.fields.map((f) => `${f.pdfMeta.originalName}:${f.type}`).sort();
        expect(shape(again)).toEqual(shape(analysis));
        expect(again.fields.every((f) => f.detail.inAcroFormFields)).toBe(true);
      });
    });
  }
});

describe.skipIf(!hasTool('pdftk'))('forms built with a damaged /Fields (needs pdftk)', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'field-list-built-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A text field `person.name` (parent + kid widget) and a checkbox; /Fields edited by `damage`. */
  async function build(damage: (doc: PDFDocument) => void): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const page = doc.addPage([300, 200]);
    page.drawText('Form', { x: 10, y: 180, size: 10 });
    const form = doc.getForm();
    form.createTextField('person.name').addToPage(page, { x: 10, y: 120, width: 150, height: 20 });
    form.createCheckBox('agree').addToPage(page, { x: 10, y: 80, width: 15, height: 15 });
    damage(doc);
    return doc.save({ updateFieldAppearances: false });
  }

  async function listed(bytes: Uint8Array, file: string): Promise<Map<string, string | undefined>> {
    const analysis = await analyse(bytes);
    const out = path.join(tmp, file);
    const values: Record<string, FillValue> = {
      'person.name': { kind: 'text', text: 'Ada' },
      agree: { kind: 'check', checked: true },
    };
    fs.writeFileSync(out, (await fillPdf(bytes, analysis, { values, flatten: false })).bytes);
    return new Map((await pdftkFields(out)).map((f) => [f.name, f.values.at(-1)]));
  }

  it('lists a field whose kid widget alone was in /Fields under its full name', async () => {
    const bytes = await build((doc) => {
      const acro = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict);
      const person = doc.getForm().getTextField('person.name').acroField;
      const kidRef = person.Kids()!.get(0);
      acro.set(PDFName.of('Fields'), doc.context.obj([kidRef, doc.getForm().getCheckBox('agree').ref]));
    });
    const got = await listed(bytes, 'kid-listed.pdf');
    expect(got.get('person.name')).toBe('Ada');
  });
});
