// Forms whose /AcroForm /Fields misses fields (widgets only pages reach, kids listed instead of
// their field): the unflattened output lists every field for readers that walk /Fields (pdftk).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analyse.js';
import { fillPdf } from '../../src/pdf/fill.js';
import type { FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir, loadManifest, type ManifestFile } from '../helpers/corpus.js';
import { hasTool, pdftkFields } from '../helpers/pdf-tools.js';

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
            v === undefined ? true
            : v.kind === 'text' ? seen === v.text
            : v.kind === 'check' ? !!seen && seen !== 'Off'
            : v.kind === 'choice' && f.type === 'radio' ? !!seen && seen !== 'Off'
            : v.kind === 'choice' ? seen === v.value
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
