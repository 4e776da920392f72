// The button defect classes of the form fidelity issue (22), each on a form built to show it
// (test/helpers/button-forms.ts), judged by poppler, MuPDF and pdf.js, flattened and not:
//  1. radio state names with PDFDocEncoding bytes or with "#" in their text are listed, set and
//     written back byte for byte;
//  2. radio buttons sharing an export value are each selectable;
//  5. a check box drawn with an embedded TrueType face whose states /AP /N holds by reference, on a
//     form with /NeedAppearances and orphan widgets, shows its tick in poppler when not flattened;
//  6. a check box whose on-appearance has no /BBox shows a mark.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillValue } from '../../src/pdf/types.js';
import { checkboxWithoutBBox, orphanTrueTypeCheckbox, radioGroup, type BuiltForm } from '../helpers/button-forms.js';
import { inkIn, renderGray, type Renderer } from '../helpers/ink.js';
import { pdfjsValue, readWithPdfjs } from '../helpers/pdfjs.js';
import { hasTool } from '../helpers/pdf-tools.js';

const run = promisify(execFile);
const renderers: Renderer[] = ['poppler', 'mupdf'];
const missing = ['pdftoppm', 'mutool'].filter((t) => !hasTool(t));
/** Dark pixels inside a 30 pt button (frame left out) that make a mark: a dot or tick is 60 and up. */
const MARK = 20;

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'button-classes-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
async function fill(form: BuiltForm, values: Record<string, FillValue>, flatten: boolean) {
  const result = await fillPdf(form.bytes, await analyse(form.bytes), { values, flatten });
  const file = path.join(tmp, `${n++}-${form.name}`);
  fs.writeFileSync(file, result.bytes);
  return { file, bytes: result.bytes, warnings: result.warnings };
}

/** The dark pixels of each button of the form, drawn by `renderer`. */
async function marks(file: string, form: BuiltForm, renderer: Renderer): Promise<number[]> {
  const img = await renderGray(file, 1, renderer);
  return form.rects.map((r) => inkIn(img, r, 4));
}

/** Every object of the file on one line each, as MuPDF writes them (names in canonical #xx escapes). */
async function objects(file: string): Promise<string> {
  return (await run('mutool', ['show', file, 'grep'], { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

describe.skipIf(missing.length > 0)(`button defect classes (missing: ${missing.join(', ') || 'none'})`, () => {
  describe('1. radio state names are decoded once', () => {
    const cases: [string, () => Promise<BuiltForm>, string[], string[]][] = [
      [
        'a PDFDocEncoding byte (0x90)',
        () => radioGroup('pdfdoc.pdf', ['Other#20choice', 'Patient#90s#20choice']),
        ['Other choice', 'Patient\u2019s choice'],
        ['/Other#20choice', '/Patient#90s#20choice'],
      ],
      [
        'text with "#" and hex digits',
        () => radioGroup('hash.pdf', ['#23d8#23a3', '#23D8#23A3']),
        ['#d8#a3', '#D8#A3'],
        ['/#23d8#23a3', '/#23D8#23A3'],
      ],
    ];
    for (const [what, build, listed, tokens] of cases) {
      it(`lists and sets every option of a state name with ${what}, writing the name back as it was`, async () => {
        const form = await build();
        const analysis = await analyse(form.bytes);
        expect(analysis.fields[0].options).toEqual(listed);
        for (const [i, option] of listed.entries()) {
          for (const flatten of [false, true]) {
            const out = await fill(form, { pick: { kind: 'choice', value: option } }, flatten);
            expect(out.warnings).toEqual([]);
            for (const renderer of renderers) {
              const ink = await marks(out.file, form, renderer);
              expect(ink[i], `${renderer} ${flatten ? 'flattened' : 'interactive'}: ${option}`).toBeGreaterThan(MARK);
              expect(ink[1 - i]).toBeLessThan(MARK);
            }
            if (!flatten) {
              const text = await objects(out.file);
              expect(text).toMatch(new RegExp(`/AS${tokens[i]}[/>]`));
              expect(text).toMatch(new RegExp(`/V${tokens[i]}[/>]`));
              for (const t of tokens) expect(text).toContain(`${t} `); // both states kept in /AP
              const pdfjs = await readWithPdfjs(out.bytes);
              expect(pdfjsValue(pdfjs.fields!.pick)).not.toBe('Off');
            }
          }
        }
      });
    }
  });

  describe('2. radio buttons sharing an export value', () => {
    it('lists each button as its own option and turns on the chosen one', async () => {
      const form = await radioGroup('shared.pdf', ['0', '1'], ['Sì', 'Sì']);
      const analysis = await analyse(form.bytes);
      expect(analysis.fields[0]).toMatchObject({ options: ['Sì', 'Sì (2)'], detail: { optionStates: ['0', '1'] } });
      for (const [i, option] of ['Sì', 'Sì (2)'].entries()) {
        for (const flatten of [false, true]) {
          const out = await fill(form, { pick: { kind: 'choice', value: option } }, flatten);
          expect(out.warnings).toEqual([]);
          for (const renderer of renderers) {
            const ink = await marks(out.file, form, renderer);
            expect(ink[i], `${renderer} ${flatten ? 'flattened' : 'interactive'}: ${option}`).toBeGreaterThan(MARK);
            expect(ink[1 - i]).toBeLessThan(MARK);
          }
          if (!flatten) expect(pdfjsValue((await readWithPdfjs(out.bytes)).fields!.pick)).toBe(String(i));
        }
      }
    });
  });

  const checkboxCases: [string, () => Promise<BuiltForm>][] = [
    [
      '5. an orphan check box drawn with an embedded TrueType face, states held by reference, NeedAppearances',
      orphanTrueTypeCheckbox,
    ],
    ['6. a check box whose on-appearance has no /BBox (Off a name)', checkboxWithoutBBox],
  ];
  for (const [what, build] of checkboxCases) {
    describe(what, () => {
      for (const flatten of [false, true]) {
        it(`shows the checked box in poppler and MuPDF and leaves the unchecked one blank, ${flatten ? 'flattened' : 'interactive'}`, async () => {
          const form = await build();
          const on = await fill(form, { agree: { kind: 'check', checked: true } }, flatten);
          const off = await fill(form, { agree: { kind: 'check', checked: false } }, flatten);
          expect(on.warnings).toEqual([]);
          for (const renderer of renderers) {
            expect((await marks(on.file, form, renderer))[0], renderer).toBeGreaterThan(MARK);
            expect((await marks(off.file, form, renderer))[0], renderer).toBeLessThan(MARK);
          }
          if (!flatten) expect(pdfjsValue((await readWithPdfjs(on.bytes)).fields!.agree)).toBe('Yes');
        });
      }
    });
  }
});
