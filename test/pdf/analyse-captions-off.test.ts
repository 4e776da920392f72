// analyse(bytes, limits, { captions: false }) is what the offline CLI renders with: no page text read
// (pdf.js never loads). Everything a render uses (names, types, formats, options, scripts, the
// template's facts) must equal the full analysis; only the page-caption parts differ.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { AnalysedField } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();
const FORMS = ['irs-fw9-2018.pdf', 'luxembourg-certificat-salaire-160-2019.pdf', 'pdfjs-form-example-multiselect.pdf'];

/** A field without what page captions decide. */
function renderFacts(f: AnalysedField) {
  const { label: _l, labelSource: _s, suggestedName: _n, optionLabels: _o, ...rest } = f;
  return rest;
}

describe.skipIf(!dir)(`analysis without page captions${dir ? '' : ' (skipped: no corpus)'}`, () => {
  for (const form of FORMS) {
    it(`gives a render the same fields as the full analysis (${form})`, async () => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', form)));
      const full = await analyse(bytes);
      const lean = await analyse(bytes, undefined, { captions: false });
      expect(lean.fields.map(renderFacts)).toEqual(full.fields.map(renderFacts));
      const { fields: _a, ...fullRest } = full;
      const { fields: _b, ...leanRest } = lean;
      expect(leanRest).toEqual(fullRest);
      // no caption was read: a label is the field's tooltip or nothing
      for (const f of lean.fields) expect(f.labelSource === 'page').toBe(false);
      // and the full analysis did read some (else this test would compare nothing)
      expect(full.fields.some((f) => f.labelSource === 'page')).toBe(true);
    });
  }
});
