// Whole scripts in text fields: Arabic, Hebrew, Hangul, Thai, Devanagari, Greek, CJK, symbols and
// mixed right-to-left text with digits, filled into a real corpus form (OSHA 301: eleven wide text
// fields on page 1, four of them multiline), flattened and not, and read back by pdftotext.
//
// pdftotext puts right-to-left text back in logical order for a line that is all RTL, but not for a
// line mixing RTL with digits or Latin (it prints such a line in visual order, each word readable).
// So pure RTL values must come back whole and in order; mixed values must come back with every word
// intact (characters in order inside each word, the digit group unbroken) and no character missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, type PDFRawStream } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillResult, FillValue } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';

const dir = corpusDir();
const FORM = 'osha-300-injury-illness-forms.pdf';
const formPath = dir ? path.join(dir, 'pdfs', FORM) : '';
const available = !!dir && fs.existsSync(formPath) && hasTool('pdftotext') && hasTool('qpdf');

interface Case {
  script: string;
  field: string;
  text: string;
  /** mixed RTL + LTR: words checked one by one (see the header) */
  mixed?: boolean;
}

const CASES: Case[] = [
  { script: 'Arabic', field: '301 Facility Name', text: 'مرحبا بالعالم' },
  { script: 'Hebrew', field: '301 Facility Address Street', text: 'שלום עולם' },
  { script: 'Korean', field: '301 Name of Doctor', text: '안녕하세요 세계' },
  { script: 'Thai', field: '301 Address Street', text: 'สวัสดีครับ' },
  { script: 'Devanagari', field: '301 Full name', text: 'नमस्ते दुनिया' },
  { script: 'Devanagari conjuncts', field: '301 Title', text: 'क्षत्रिय' },
  { script: 'Greek', field: '301 Completed by', text: 'Καλημέρα κόσμε' },
  { script: 'CJK', field: '301 What Harmed Employee', text: '東京 你好世界' },
  { script: 'symbols', field: '301 Describe Injury or Illness', text: '✔ ☐ ₹ 500' },
  { script: 'Arabic with digits', field: '301 What Happened', text: 'رقم 123 فاتورة', mixed: true },
  { script: 'Hebrew with digits and Latin', field: '301 Activity Prior to Event', text: 'מספר 42 ABC', mixed: true },
];

/** NFKC, without the bidi controls pdftotext adds around RTL runs. */
const normal = (s: string) => s.normalize('NFKC').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
const squash = (s: string) => normal(s).replace(/\s+/g, '');
const counts = (s: string) => {
  const m = new Map<string, number>();
  for (const c of squash(s)) m.set(c, (m.get(c) ?? 0) + 1);
  return m;
};

describe.skipIf(!available)(
  `scripts drawn into ${FORM} and read back by pdftotext (needs the corpus and poppler)`,
  () => {
    let tmp: string;
    const results = new Map<boolean, { result: FillResult; text: string; file: string }>();

    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fill-scripts-'));
      const bytes = new Uint8Array(fs.readFileSync(formPath));
      const analysis = await analyse(bytes);
      const names = new Set(analysis.fields.map((f) => f.pdfMeta.originalName));
      for (const c of CASES) expect(names.has(c.field), c.field).toBe(true);
      const values: Record<string, FillValue> = Object.fromEntries(
        CASES.map((c) => [c.field, { kind: 'text', text: c.text }]),
      );
      for (const flatten of [true, false]) {
        const result = await fillPdf(bytes, analysis, { values, flatten });
        const out = path.join(tmp, `${flatten ? 'flat' : 'open'}.pdf`);
        fs.writeFileSync(out, result.bytes);
        results.set(flatten, { result, text: await pdftotext(out), file: out });
      }
    });
    afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

    /** x of the first text position in the field's appearance, and the widget's width. */
    async function textStart(field: string): Promise<{ x: number; width: number }> {
      const doc = await PDFDocument.load(results.get(false)!.result.bytes);
      const widget = doc.getForm().getTextField(field).acroField.getWidgets()[0];
      const ap = widget.dict.lookup(PDFName.of('AP'), PDFDict);
      const stream = ap.lookup(PDFName.of('N')) as PDFRawStream;
      const raw = stream.getContents();
      const content = Buffer.from(stream.dict.has(PDFName.of('Filter')) ? inflateSync(raw) : raw).toString('latin1');
      const m = /1 0 0 1 ([\d.]+) [\d.]+ Tm/.exec(content);
      return { x: Number(m?.[1]), width: widget.getRectangle().width };
    }

    it('right-aligns a right-to-left value in a field aligned left by default, and keeps Latin-script values at the left', async () => {
      const rtl = await textStart('301 Facility Name'); // Arabic
      const ltr = await textStart('301 Completed by'); // Greek
      expect(rtl.x).toBeGreaterThan(rtl.width / 2);
      expect(ltr.x).toBeLessThan(10);
    });

    for (const flatten of [true, false]) {
      const mode = flatten ? 'flattened' : 'not flattened';

      it(`writes a PDF qpdf finds no error in (${mode})`, async () => {
        const check = await qpdfCheck(results.get(flatten)!.file);
        expect(check.code === 0 || check.warnings.length === 0, check.output).toBe(true);
      });

      it(`reports no dropped characters (${mode})`, () => {
        const { result } = results.get(flatten)!;
        expect(result.warnings.filter((w) => /left out|dropped/.test(w))).toEqual([]);
      });

      for (const c of CASES) {
        if (!c.mixed) {
          it(`gives ${c.script} back to pdftotext in order (${mode})`, () => {
            expect(squash(results.get(flatten)!.text)).toContain(squash(c.text));
          });
        } else {
          it(`gives ${c.script} back to pdftotext word by word, digit group intact, nothing missing (${mode})`, () => {
            const text = normal(results.get(flatten)!.text);
            // the extracted line holding this value: the one with its first word
            const words = normal(c.text).split(/\s+/);
            const line = text.split('\n').find((l) => l.includes(words[0])) ?? '';
            for (const w of words) expect(line).toContain(w);
            const need = counts(c.text);
            const got = counts(line);
            for (const [ch, n] of need) expect(got.get(ch) ?? 0, ch).toBeGreaterThanOrEqual(n);
          });
        }
      }
    }
  },
);
