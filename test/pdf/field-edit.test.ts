// The field editor (pdf/edit/) on real corpus forms and on flat PDFs: one field of every type added, one
// existing field moved and resized, one deleted. The outputs are judged by our analyser and fill engine
// and by independent readers: qpdf, pdf.js, poppler (pdftotext, pdftoppm) and MuPDF (mutool draw).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { editFields } from '../../src/pdf/edit/edit-fields.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { FieldEditError, type AnalysedField, type FieldEdit, type TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir, corpusFiles } from '../helpers/corpus.js';
import { movedRect, NEW, RADIO_RECTS, sampleEdits, sampleFill, sampleTexts } from '../helpers/field-edits.js';
import { changeIn, renderPages, type Pgm, type Renderer } from '../helpers/ink.js';
import { readWithPdfjs, toPixels, pdfjsValue, asStrings, type PdfjsReading } from '../helpers/pdfjs.js';
import { hasTool, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';

const run = promisify(execFile);
const dir = corpusDir();
const tools = ['qpdf', 'pdftotext', 'pdftoppm', 'mutool'].filter((t) => !hasTool(t));
/** A drawn mark changes its box by at least this mean share of full contrast (an absent one: 0). */
const MARK_MIN = 0.02;
const DPI = 72;

/** Corpus forms of different makes: xref streams and object streams, XFA, NeedAppearances, AES, rotation, none. */
const CORPUS = [
  'pdflib-sample-form.pdf',
  'libreoffice-form.pdf',
  'irs-fw9-2018.pdf',
  'vitality-rebate-aes-encrypted.pdf',
  'pdfbox-rotated-pages.pdf',
  'negative-no-acroform-cerfa-12101-03.pdf',
];

/** A PDF without any form: two A4 pages of text. */
async function flatPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const title of ['Application', 'Second page']) {
    const page = doc.addPage([595, 842]);
    page.drawText(title, { x: 40, y: 790, size: 20, font });
  }
  return doc.save();
}

const squash = (s: string) => s.normalize('NFKC').replace(/\s+/g, '');

/** The flattened vs unfilled change inside each box (PDF rects on page 1), as a share of full contrast. */
function marks(reading: PdfjsReading, filled: Pgm, empty: Pgm, rects: number[][]): number[] {
  return rects.map((r) => {
    const { change, pixels } = changeIn(filled, empty, toPixels(r, reading.pageTransforms[0], DPI));
    return pixels ? change / (pixels * 255) : 0;
  });
}

interface Case {
  name: string;
  source: Uint8Array;
  before?: TemplateAnalysis;
  moved?: AnalysedField;
  deleted?: AnalysedField;
  edits: FieldEdit[];
  out: Uint8Array;
  after: TemplateAnalysis;
  /** the edited template, and it filled (open, flat) and filled with the box and radio group off */
  files: { template: string; edited: string; open: string; flat: string; openOff: string; flatOff: string };
}

async function prepareCase(name: string, source: Uint8Array, tmp: string): Promise<Case> {
  const before = await analyse(source).catch(() => undefined); // a flat PDF has no form to analyse
  const { edits, moved, deleted } = sampleEdits(before);
  const out = await editFields(source, edits);
  const after = await analyse(out);
  const values = sampleFill(moved);
  const base = path.join(tmp, name.replace(/\.pdf$/, ''));
  fs.mkdirSync(base, { recursive: true });
  const files = {
    template: path.join(base, 'template.pdf'),
    edited: path.join(base, 'edited.pdf'),
    open: path.join(base, 'open.pdf'),
    flat: path.join(base, 'flat.pdf'),
    openOff: path.join(base, 'open-off.pdf'),
    flatOff: path.join(base, 'flat-off.pdf'),
  };
  const off = { ...values, [NEW.checkbox]: { kind: 'check', checked: false }, [NEW.radio]: { kind: 'clear' } } as const;
  fs.writeFileSync(files.template, source);
  fs.writeFileSync(files.edited, out);
  fs.writeFileSync(files.open, (await fillPdf(out, after, { values, flatten: false })).bytes);
  fs.writeFileSync(files.flat, (await fillPdf(out, after, { values, flatten: true })).bytes);
  fs.writeFileSync(files.openOff, (await fillPdf(out, after, { values: off, flatten: false })).bytes);
  fs.writeFileSync(files.flatOff, (await fillPdf(out, after, { values: off, flatten: true })).bytes);
  return { name, source, before, moved, deleted, edits, out, after, files };
}

describe.skipIf(tools.length > 0)(
  `editFields, judged by other readers (missing: ${tools.join(', ') || 'none'})`,
  () => {
    let tmp: string;
    beforeAll(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'field-edit-'));
    });
    afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

    const sources: [string, () => Promise<Uint8Array>][] = [
      ['made-flat.pdf', flatPdf],
      ...(dir ? CORPUS : []).map((f): [string, () => Promise<Uint8Array>] => [
        f,
        async () => new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', f))),
      ]),
    ];

    for (const [name, load] of sources) {
      describe(name, () => {
        let c: Case;
        beforeAll(async () => {
          c = await prepareCase(name, await load(), tmp);
        }, 60_000);

        it('lists every new field with its type, maxLength, options, page and rect', () => {
          const byName = new Map(c.after.fields.map((f) => [f.pdfMeta.originalName, f]));
          const seen = Object.values(NEW).map((n) => {
            const f = byName.get(n);
            return f && [n, f.type, f.maxLength, f.options, f.pdfMeta.page, f.required];
          });
          expect(seen).toEqual([
            [NEW.text, 'text', 30, undefined, 1, false],
            [NEW.multiline, 'text', undefined, undefined, 1, false],
            [NEW.number, 'number', undefined, undefined, 1, false],
            [NEW.date, 'date', undefined, undefined, 1, false],
            [NEW.comb, 'text', 5, undefined, 1, false],
            [NEW.checkbox, 'checkbox', undefined, undefined, 1, true],
            [NEW.dropdown, 'dropdown', undefined, ['Alpha', 'Beta'], 1, false],
            [NEW.radio, 'radio', undefined, ['One', 'Two'], 1, false],
            [NEW.signature, 'signature', undefined, undefined, 1, false],
          ]);
          expect(byName.get(NEW.multiline)!.detail.multiline).toBe(true);
          expect(byName.get(NEW.comb)!.detail.comb).toBe(true);
          expect(byName.get(NEW.date)!.detail.format).toEqual({ kind: 'date', pattern: 'dd/mm/yyyy' });
          expect(byName.get(NEW.number)!.detail.format).toMatchObject({ kind: 'number', decimals: 2 });
          expect(byName.get(NEW.text)!.pdfMeta.rect).toEqual([40, 60, 200, 80]);
          expect(byName.get(NEW.radio)!.pdfMeta.widgets).toEqual(RADIO_RECTS.map((rect) => ({ page: 1, rect })));
          expect(byName.get(NEW.text)!.label).toBe(NEW.text);
        });

        it('moves and resizes the moved field, drops the deleted one and keeps every other field', () => {
          const names = c.after.fields.map((f) => f.pdfMeta.originalName);
          const kept = (c.before?.fields ?? []).filter((f) => f !== c.deleted).map((f) => f.pdfMeta.originalName);
          expect(names).toEqual([...kept, ...Object.values(NEW)]);
          if (c.deleted) expect(names).not.toContain(c.deleted.pdfMeta.originalName);
          if (c.moved) {
            const moved = c.after.fields.find((f) => f.pdfMeta.originalName === c.moved!.pdfMeta.originalName)!;
            expect([moved.pdfMeta.page, moved.pdfMeta.rect]).toEqual([1, movedRect(c.moved)]);
          }
          if (name !== 'made-flat.pdf' && !name.startsWith('negative-')) expect(c.moved && c.deleted).toBeTruthy();
        });

        it('keeps the template as it was: its bytes as the first revision, or (encrypted) its pages drawn the same', async () => {
          if (!c.before?.encrypted) {
            expect(Buffer.compare(Buffer.from(c.out.subarray(0, c.source.length)), Buffer.from(c.source))).toBe(0);
            return;
          }
          // Written decrypted in one revision: the pages' own content must draw pixel for pixel the same.
          const [a, b] = await Promise.all(
            [c.files.template, c.files.edited].map((f, i) =>
              renderPages('poppler', f, path.join(tmp, `${name}-content-${i}`), { dpi: DPI, annotations: 'none' }),
            ),
          );
          expect(b.length).toBe(a.length);
          for (const [i, img] of a.entries())
            expect(Buffer.compare(Buffer.from(img.pixels), Buffer.from(b[i].pixels))).toBe(0);
        });

        it('passes qpdf --check no worse than the template did, edited and filled', async () => {
          const template = await qpdfCheck(c.files.template);
          for (const file of [c.files.edited, c.files.open, c.files.flat]) {
            const check = await qpdfCheck(file);
            if (template.code === 0) expect(check.code, check.output).toBe(0);
            else expect(check.code, check.output).not.toBe(2);
          }
        });

        it('opens in pdf.js with each new field a widget annotation of the right type', async () => {
          const reading = await readWithPdfjs(c.out);
          const widget = (n: string) => reading.widgets.filter((w) => w.fieldName === n);
          const kind = (n: string) =>
            widget(n).map((w) =>
              [
                w.page,
                w.fieldType,
                w.checkBox && 'check',
                w.radioButton && 'radio',
                w.combo && 'combo',
                w.multiLine && 'multi',
                w.comb && 'comb',
              ]
                .filter(Boolean)
                .join(' '),
            );
          expect(Object.fromEntries(Object.values(NEW).map((n) => [n, kind(n)]))).toEqual({
            [NEW.text]: ['Tx'],
            [NEW.multiline]: ['Tx multi'],
            [NEW.number]: ['Tx'],
            [NEW.date]: ['Tx'],
            [NEW.comb]: ['Tx comb'],
            [NEW.checkbox]: ['Btn check'],
            [NEW.dropdown]: ['Ch combo'],
            [NEW.radio]: ['Btn radio', 'Btn radio'],
            [NEW.signature]: ['Sig'],
          });
          expect(widget(NEW.comb)[0].maxLen).toBe(5);
          expect(widget(NEW.dropdown)[0].options).toEqual(['Alpha', 'Beta']);
          expect(widget(NEW.text)[0].flags & 4).toBe(4);
          if (c.deleted) expect(widget(c.deleted.pdfMeta.originalName)).toEqual([]);
        });

        it('fills the new fields: pdf.js reads every value back when not flattened', async () => {
          const reading = await readWithPdfjs(fs.readFileSync(c.files.open));
          const fields = reading.fields ?? {};
          const got = (n: string) => asStrings(pdfjsValue(fields[n] ?? [])).at(-1);
          for (const [n, text] of Object.entries(sampleTexts(c.moved))) expect(got(n), n).toBe(text);
          expect(got(NEW.checkbox)).toBe('Yes');
          expect(got(NEW.dropdown)).toBe('Beta');
          // pdf.js reports the chosen button's on-state ("1" is the second button; /Opt maps it to "Two")
          expect(['1', 'Two']).toContain(got(NEW.radio));
        });

        it('shows every text value on page 1 to pdftotext and MuPDF, flattened and not, and to pdf.js flattened', async () => {
          const texts = Object.values(sampleTexts(c.moved)).map(squash);
          const [flatReading, ...pages] = await Promise.all([
            readWithPdfjs(fs.readFileSync(c.files.flat), { text: true }),
            ...[c.files.open, c.files.flat].flatMap((f) => [
              run('pdftotext', ['-enc', 'UTF-8', '-raw', '-f', '1', '-l', '1', f, '-']).then((r) => r.stdout),
              run('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', f, '1']).then((r) => r.stdout),
            ]),
          ]);
          expect(flatReading.fields ?? {}).toEqual({});
          for (const page of [...pages, flatReading.pageTexts[0]]) {
            expect(texts.filter((t) => !squash(page).includes(t))).toEqual([]);
          }
          expect(squash(await pdftotext(c.files.flat))).toContain('Beta');
        });

        for (const renderer of ['poppler', 'mupdf'] as Renderer[]) {
          it(`draws the check mark and the chosen radio button, flattened and not (${renderer})`, async () => {
            const reading = await readWithPdfjs(c.out);
            const draw = (file: string, label: string) =>
              renderPages(renderer, file, path.join(tmp, name, `${renderer}-${label}`), {
                dpi: DPI,
                annotations: renderer === 'mupdf' ? 'no-signatures' : 'all',
              }).then((p) => p[0]);
            const [open, openOff, flat, flatOff] = await Promise.all(
              (['open', 'openOff', 'flat', 'flatOff'] as const).map((k) => draw(c.files[k], k)),
            );
            const check = [40, 230, 54, 244];
            for (const [on, off] of [
              [open, openOff],
              [flat, flatOff],
            ]) {
              const [checkMark, first, second] = marks(reading, on, off, [check, ...RADIO_RECTS]);
              expect(checkMark).toBeGreaterThan(MARK_MIN);
              expect(second).toBeGreaterThan(MARK_MIN);
              expect(first).toBeLessThan(MARK_MIN / 4); // the other button stays off
            }
          });
        }
      });
    }
  },
);

describe.skipIf(!dir || tools.length > 0)('editFields on every corpus PDF it can read', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'field-edit-all-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const file of corpusFiles()) {
    const name = path.basename(file);
    it(`adds a field to ${name} that readers find, keeping the rest intact`, async () => {
      const source = new Uint8Array(fs.readFileSync(file));
      let out: Uint8Array;
      try {
        out = await editFields(source, [
          { op: 'add', field: { name: 'ed_probe', type: 'text', page: 1, rect: [40, 40, 200, 60] } },
        ]);
      } catch (err) {
        // only what cannot be read at all is refused (not a PDF)
        expect((err as Error).name).toBe('PdfEngineError');
        return;
      }
      const base = path.join(tmp, name);
      fs.writeFileSync(`${base}.in.pdf`, source);
      fs.writeFileSync(`${base}.out.pdf`, out);
      const [before, after] = await Promise.all([qpdfCheck(`${base}.in.pdf`), qpdfCheck(`${base}.out.pdf`)]);
      if (before.code === 0) expect(after.code, after.output).toBe(0);
      else expect(after.code, after.output).not.toBe(2);
      expect((await analyse(out)).fields.map((f) => f.pdfMeta.originalName)).toContain('ed_probe');
      const reading = await readWithPdfjs(out);
      expect(reading.widgets.filter((w) => w.fieldName === 'ed_probe').map((w) => w.page)).toEqual([0]);
      if (Buffer.compare(Buffer.from(out.subarray(0, source.length)), Buffer.from(source)) === 0) return;
      // Written as one new revision (encrypted or damaged): every page's own content draws the same.
      const [a, b] = await Promise.all(
        [`${base}.in.pdf`, `${base}.out.pdf`].map((f, i) =>
          renderPages('poppler', f, `${base}-${i}`, { dpi: 36, annotations: 'none' }),
        ),
      );
      expect(b.length).toBe(a.length);
      for (const [i, img] of a.entries())
        expect(Buffer.compare(Buffer.from(img.pixels), Buffer.from(b[i].pixels))).toBe(0);
    }, 60_000);
  }
});

describe('editFields refuses edits it cannot apply', () => {
  let flat: Uint8Array;
  beforeAll(async () => {
    flat = await editFields(await flatPdf(), [
      { op: 'add', field: { name: 'existing', type: 'text', page: 1, rect: [40, 40, 200, 60] } },
      {
        op: 'add',
        field: {
          name: 'group',
          type: 'radio',
          options: ['a', 'b'],
          widgets: [
            { page: 1, rect: [40, 100, 50, 110] },
            { page: 1, rect: [60, 100, 70, 110] },
          ],
        },
      },
    ]);
  });

  /** The problems editFields throws for `edits`, as "field: message" lines. */
  async function problems(edits: unknown[]): Promise<string[]> {
    try {
      await editFields(flat, edits as FieldEdit[], { maxEdits: 20, maxOptions: 5 });
    } catch (err) {
      if (err instanceof FieldEditError) return err.problems.map((p) => `${p.field}: ${p.message}`);
      throw err;
    }
    return [];
  }
  /** An add of a text field (the tests below also send what the types forbid, as a JSON body may). */
  const add = (field: Record<string, unknown>): FieldEdit =>
    ({ op: 'add', field: { type: 'text', page: 1, rect: [40, 300, 200, 320], ...field } }) as FieldEdit;

  const cases: [string, unknown[], RegExp][] = [
    ['an update of an unknown field', [{ op: 'update', name: 'nope', changes: { required: true } }], /^nope: no field/],
    ['a delete of an unknown field', [{ op: 'delete', name: 'nope' }], /^nope: no field/],
    ['a name that exists already', [add({ name: 'existing' })], /^existing: a field named "existing" exists/],
    ['a name with a dot', [add({ name: 'a.b' })], /^a\.b: the name may not contain "\."/],
    ['an empty name', [add({ name: '' })], /^edit 1: the name is empty/],
    ['a page out of range', [add({ name: 'p', page: 3 })], /^p: page 3 does not exist \(the PDF has 2 pages\)/],
    ['a box off the page', [add({ name: 'off', rect: [500, 800, 700, 900] })], /^off: the box .* is not inside page 1/],
    ['a box of zero size', [add({ name: 'zero', rect: [40, 40, 40, 60] })], /^zero: the box has zero or negative size/],
    [
      'a box of negative size',
      [add({ name: 'neg', rect: [200, 60, 40, 40] })],
      /^neg: the box has zero or negative size/,
    ],
    [
      'overlapping radio buttons',
      [
        add({
          name: 'r',
          type: 'radio',
          page: undefined,
          rect: undefined,
          options: ['a', 'b'],
          widgets: [
            { page: 1, rect: [40, 40, 60, 60] },
            { page: 1, rect: [50, 50, 70, 70] },
          ],
        }),
      ],
      /^r: radio buttons 1 and 2 overlap on page 1/,
    ],
    [
      'overlapping radio buttons after a move',
      [
        {
          op: 'update',
          name: 'group',
          changes: {
            widgets: [
              { page: 1, rect: [40, 100, 50, 110] },
              { page: 1, rect: [45, 105, 55, 115] },
            ],
          },
        },
      ],
      /^group: radio buttons 1 and 2 overlap/,
    ],
    [
      'duplicate options',
      [add({ name: 'd', type: 'dropdown', options: ['x', 'y', 'x'] })],
      /^d: the option "x" is listed twice/,
    ],
    ['an empty option list', [add({ name: 'e', type: 'dropdown', options: [] })], /^e: the option list is empty/],
    [
      'too many options',
      [add({ name: 'm', type: 'dropdown', options: ['1', '2', '3', '4', '5', '6'] })],
      /^m: more than 5 options/,
    ],
    [
      'a maxLength that is not a positive integer',
      [add({ name: 'ml', maxLength: 2.5 })],
      /^ml: maxLength must be a positive integer/,
    ],
    [
      'a zero maxLength in an update',
      [{ op: 'update', name: 'existing', changes: { maxLength: 0 } }],
      /^existing: maxLength must be a positive integer/,
    ],
    ['a comb without cells', [add({ name: 'c', type: 'comb' })], /^c: a comb field needs cells/],
    ['negative cells', [add({ name: 'c2', type: 'comb', cells: -3 })], /^c2: cells must be a positive integer/],
    [
      'a radio group with fewer widgets than options',
      [
        add({
          name: 'r2',
          type: 'radio',
          page: undefined,
          rect: undefined,
          options: ['a', 'b', 'c'],
          widgets: [{ page: 1, rect: [40, 40, 60, 60] }],
        }),
      ],
      /^r2: 1 widgets for 3 options/,
    ],
    [
      'a date pattern with script in it',
      [add({ name: 'dt', type: 'date', dateFormat: 'dd"); app.alert(1); ("' })],
      /^dt: dateFormat must be a date pattern/,
    ],
    ['options on a text field', [add({ name: 'o', options: ['a'] })], /^o: options does not apply to a text field/],
    ['an unknown operation', [{ op: 'rename', name: 'existing' }], /^existing: unknown operation "rename"/],
    [
      'too many edits',
      Array.from({ length: 21 }, (_, i) => add({ name: `f${i}`, rect: [40, 40 + i * 10, 60, 48 + i * 10] })),
      /^: 21 edits in one request; at most 20/,
    ],
  ];
  for (const [what, edits, expected] of cases) {
    it(`names the field for ${what}`, async () => {
      const found = await problems(edits);
      expect(found.length, found.join('\n')).toBe(1);
      expect(found[0]).toMatch(expected);
    });
  }

  it('refuses edits that would give the form more fields than the analyser accepts', async () => {
    await expect(
      editFields(flat, [add({ name: 'one' }), add({ name: 'two', rect: [40, 340, 200, 360] })], { maxFields: 3 }),
    ).rejects.toMatchObject({ problems: [{ field: '', message: 'the form would have 4 fields; at most 3' }] });
  });

  it('lists every problem of a request at once and applies none of the valid edits', async () => {
    const edits = [
      add({ name: 'fine' }),
      add({ name: 'a.b' }),
      { op: 'delete', name: 'nope' },
      add({ name: 'zero', rect: [1, 1, 1, 1] }),
    ];
    expect((await problems(edits)).map((p) => p.split(':')[0])).toEqual(['a.b', 'nope', 'zero']);
  });

  it('lets later edits see earlier ones: a field added, updated and then deleted in one request', async () => {
    const out = await editFields(flat, [
      add({ name: 'temp' }),
      {
        op: 'update',
        name: 'temp',
        changes: { rect: [40, 400, 300, 430], fontSize: 10, alignment: 'center', required: true },
      },
      { op: 'delete', name: 'existing' },
      add({ name: 'existing', rect: [40, 500, 200, 520] }),
      { op: 'delete', name: 'temp' },
    ]);
    const fields = (await analyse(out)).fields;
    expect(fields.map((f) => [f.pdfMeta.originalName, f.pdfMeta.rect])).toEqual([
      ['group', [40, 100, 50, 110]],
      ['existing', [40, 500, 200, 520]],
    ]);
  });

  it('updates font size, alignment, MaxLen, comb cells, options and the required flag of existing fields', async () => {
    const out = await editFields(flat, [
      { op: 'add', field: { name: 'dd', type: 'dropdown', page: 2, rect: [40, 40, 200, 60], options: ['a', 'b'] } },
      { op: 'update', name: 'existing', changes: { fontSize: 11, alignment: 'right', cells: 8, required: true } },
      { op: 'update', name: 'dd', changes: { options: ['c', 'd', 'e'], fontSize: 9 } },
      { op: 'update', name: 'group', changes: { options: ['yes', 'no'] } },
    ]);
    const byName = new Map((await analyse(out)).fields.map((f) => [f.pdfMeta.originalName, f]));
    expect(byName.get('existing')).toMatchObject({ maxLength: 8, required: true, detail: { comb: true } });
    expect(byName.get('dd')).toMatchObject({ options: ['c', 'd', 'e'], pdfMeta: { page: 2 } });
    expect(byName.get('group')!.options).toEqual(['yes', 'no']);
    const text = Buffer.from(out).toString('latin1');
    expect(text).toMatch(/\/Q 2\b/);
  });
});
