// analyse() against every file of the shared corpus, checked with the manifest's qpdf-derived
// facts. Deviations from the manifest are proven in docs/analysis-notes.md and asserted here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { PdfEngineError, type AnalysedField, type FieldType, type TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir, corpusFiles, manifestEntry, type ManifestField } from '../helpers/corpus.js';

const dir = corpusDir();

const TYPES_FOR_KIND: Record<string, FieldType[]> = {
  text: ['text', 'date', 'number'],
  checkbox: ['checkbox'],
  radio: ['radio'],
  combo: ['dropdown'],
  listbox: ['dropdown'],
  signature: ['signature'],
};

/**
 * Checkbox on-states where the manifest lists an extra state that is not an on-state. Proof in
 * docs/analysis-notes.md: the widgets' /AP /N holds "/1" plus an empty "/N" stream and no /Off,
 * while /AP /D holds /1 and /Off; the stray /N is the missing off appearance under a wrong name.
 */
const PROVEN_ON_STATES: Record<string, Record<string, string[]>> = {
  'irs-fw9-2018.pdf': {
    'topmostSubform[0].Page1[0].FederalClassification[0].c1_1[0]': ['1'],
    'topmostSubform[0].Page1[0].FederalClassification[0].c1_1[6]': ['7'],
  },
};

/** The type a format action implies for a text field (AFTime stays text: see analysis notes). */
function typeForFormat(js: string | null): FieldType {
  if (js && /\bAFDate_/.test(js)) return 'date';
  if (js && /\bAF(Number|Percent)_Format\b/.test(js)) return 'number';
  return 'text';
}

const unique = <T>(xs: T[]) => [...new Set(xs)];

function checkField(file: string, f: AnalysedField, m: ManifestField): void {
  const where = `${file} ${m.fullName}`;
  expect(TYPES_FOR_KIND[m.kind], where).toContain(f.type);
  if (m.kind === 'text') expect(f.type, where).toBe(typeForFormat(m.formatAction));
  expect(f.required, where).toBe(m.flags.required);
  expect(f.pdfMeta.readOnly ?? false, where).toBe(m.flags.readOnly);
  if (m.flags.readOnly) expect(f.pdfMeta.readOnly, where).toBe(true);
  else expect('readOnly' in f.pdfMeta, where).toBe(false);
  expect(f.pdfMeta.page, where).toBe(m.page);
  expect(f.maxLength ?? null, where).toBe(m.maxLen);
  expect(f.detail.ft, where).toBe(m.ftype);
  expect(f.detail.widgetCount, where).toBe(m.widgetCount);
  expect(f.detail.inAcroFormFields, where).toBe(m.inAcroFormFields);
  expect(Boolean(f.detail.multiline), where).toBe(m.flags.multiline);
  expect(Boolean(f.detail.comb), where).toBe(m.flags.comb);

  if (f.type === 'dropdown') {
    expect(f.options, where).toEqual(m.options);
    expect(f.detail.listBox, where).toBe(m.kind === 'listbox');
    expect(f.detail.multiSelect, where).toBe(m.flags.multiSelect);
    if (m.optionDisplay) expect(f.detail.optionLabels, where).toEqual(m.optionDisplay);
  } else if (f.type === 'radio') {
    // Callers send /Opt values when the buttons have /Opt, else state names. A button repeated (same
    // value and state) is one choice; buttons sharing only a value are listed "v", "v (2)", ...
    const states = m.options ?? [];
    const choices = unique(
      (m.btnOpt ?? states).flatMap((v, i) => (v === null || states[i] == null ? [] : [`${v}\n${states[i]}`])),
    ).map((c) => c.split('\n'));
    expect(f.options, where).toEqual(
      choices.map(([v], k) => {
        const n = choices.slice(0, k + 1).filter(([x]) => x === v).length;
        return n === 1 ? v : `${v} (${n})`;
      }),
    );
    expect(f.detail.optionStates, where).toEqual(choices.map(([, s]) => s));
  } else if (f.type === 'checkbox') {
    expect(f.options, where).toBeUndefined();
    const proven = PROVEN_ON_STATES[file]?.[m.fullName];
    expect(f.detail.onStates, where).toEqual(proven ?? m.options);
  } else {
    expect(f.options, where).toBeUndefined();
  }
  if (m.formatAction && /\bAF(Date|Time|Number|Percent|Special)_/.test(m.formatAction)) {
    expect(f.detail.format, `${where}: ${m.formatAction}`).toBeDefined();
  }
}

describe.skipIf(!dir)('analyse() on the corpus', () => {
  for (const pdf of corpusFiles()) {
    const file = path.basename(pdf);
    const entry = manifestEntry(pdf);
    if (!entry) {
      it.skip(`${file}: not in manifest.json`, () => {});
      continue;
    }
    if (!entry.validAcroForm) {
      it(`${file}: rejected with INVALID_PDF`, async () => {
        const err = await analyse(new Uint8Array(fs.readFileSync(pdf))).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(PdfEngineError);
        expect((err as PdfEngineError).code).toBe('INVALID_PDF');
        expect((err as PdfEngineError).message).not.toBe('');
      });
      continue;
    }
    it(`${file}: matches the manifest`, async () => {
      const a: TemplateAnalysis = await analyse(new Uint8Array(fs.readFileSync(pdf)));
      expect(a.pageCount).toBe(entry.pageCount);
      expect(a.encrypted).toBe(entry.isEncrypted);
      expect(a.hasXfa).toBe(entry.hasXfa);
      const expected = entry.fields.filter((f) => f.kind !== 'pushbutton');
      expect(a.fields).toHaveLength(expected.length);
      const byName = new Map(a.fields.map((f) => [f.pdfMeta.originalName, f]));
      for (const m of expected) {
        const f = byName.get(m.fullName);
        expect(f, `${file}: field ${m.fullName}`).toBeDefined();
        checkField(file, f!, m);
      }
      // Keys: non-empty, unique, and never another field's fully qualified name.
      const names = a.fields.map((f) => f.name);
      expect(new Set(names).size).toBe(names.length);
      for (const f of a.fields) {
        expect(f.name.length).toBeGreaterThan(0);
        const other = byName.get(f.name);
        if (other) expect(other).toBe(f);
      }
    });
  }

  it('derives the same keys on re-analysis', async () => {
    for (const file of ['canada-cra-cannabis-duty-return.pdf', 'irs-fw9-2018.pdf', 'japan-jlpt-2025-application.pdf']) {
      const pdf = path.join(dir!, 'pdfs', file);
      if (!fs.existsSync(pdf)) continue;
      const bytes = new Uint8Array(fs.readFileSync(pdf));
      const [a, b] = [await analyse(bytes), await analyse(bytes)];
      expect(a.fields.map((f) => f.name)).toEqual(b.fields.map((f) => f.name));
    }
  });

  it('gives short keys for XFA-style names', async () => {
    const pdf = path.join(dir!, 'pdfs', 'irs-fw9-2018.pdf');
    const a = await analyse(new Uint8Array(fs.readFileSync(pdf)));
    const byOriginal = new Map(a.fields.map((f) => [f.pdfMeta.originalName, f.name]));
    expect(byOriginal.get('topmostSubform[0].Page1[0].f1_1[0]')).toBe('f1_1');
    // Seven checkboxes named c1_1[0..6]: the index is what tells them apart.
    expect(byOriginal.get('topmostSubform[0].Page1[0].FederalClassification[0].c1_1[6]')).toBe('c1_1_6');
  });
});

if (!dir) {
  describe('analyse() on the corpus', () => {
    it.skip('PDF corpus not found (expected ../shared/corpus or $CORPUS_DIR): corpus tests skipped', () => {});
  });
}
