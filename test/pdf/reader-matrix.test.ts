// The reader matrix (issue "Form fidelity"): every valid corpus form is filled in-process, once kept
// interactive and once flattened, and each output is judged only by independent readers:
//   qpdf --check                      both outputs: no errors (exit code 2)
//   pdftk dump_data_fields_utf8       interactive: every value written; flattened: no field left
//   pdf.js getFieldObjects()          interactive: every value written; flattened: no field left
//   pdftotext, pdf.js getTextContent  flattened: every text value on its field's page
//   pdftoppm and mutool draw          flattened: every page keeps at least the ink of the template's page
//                                     (its own content) and of the same page filled but not flattened;
//                                     every box we checked shows a mark (differs from the box left unchecked);
//                                     widgets that do not print (no Print flag: button bars) are not drawn
//                                     interactive: every box we checked shows a mark too
// Besides the corpus, the forms built to show the button defect classes of issue 22 (test/helpers/
// button-forms.ts) go through the same checks.
// Known engine faults make some forms fail here on purpose; the test is not bent around them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { editFields } from '../../src/pdf/edit/edit-fields.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import type { AnalysedField, FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { buttonClassForms } from '../helpers/button-forms.js';
import { corpusDir, loadManifest, type ManifestFile } from '../helpers/corpus.js';
import { sampleEdits } from '../helpers/field-edits.js';
import {
  changeIn,
  darkPixels,
  darkPixelsOutside,
  renderPages,
  type AnnotationMode,
  type Pgm,
  type Renderer,
} from '../helpers/ink.js';
import {
  asStrings,
  checkboxValueVisible,
  nameAsLatin1,
  nameAsPdfjs,
  pdfDocNameAsLatin1,
  pdfjsValue,
  readWithPdfjs,
  toPixels,
  type PdfjsFieldObject,
  type PdfjsReading,
} from '../helpers/pdfjs.js';
import {
  hasTool,
  pdftkCannotReport,
  pdftkFields,
  qpdfCheck,
  type PdftkField,
  type QpdfCheck,
} from '../helpers/pdf-tools.js';
import { inkIn as colorInkIn, pixelsOf, renderRgb, type ColorRenderer } from '../helpers/color-pages.js';
import {
  AMOUNT_RECTS,
  ENCRYPTIONS,
  NOROTATE_RECT,
  amountsForm,
  encryptWithLiteralStrings,
  escapedStringsForm,
  noRotateForm,
  outsideBoxesForm,
} from '../helpers/fidelity-forms.js';
import { validateData } from '../../src/modules/render-data/validate-data.js';

const run = promisify(execFile);
const dir = corpusDir();
/**
 * Corpus files that also run through the matrix as the field editor leaves them (pdf/edit/, the session
 * of helpers/field-edits.ts: a field of every type added, one moved, one deleted): the edited template
 * must work in every reader like a form made elsewhere. Of several makes: xref and object streams,
 * NeedAppearances, XFA, AES, and a PDF without a form.
 */
const EDITED = [
  'pdflib-sample-form.pdf',
  'libreoffice-form.pdf',
  'irs-fw9-2018.pdf',
  'vitality-rebate-aes-encrypted.pdf',
  'negative-no-acroform-cerfa-12101-03.pdf',
];

interface MatrixForm {
  /** the test's name: the file name, "edited-" before it for an edited template */
  name: string;
  entry: ManifestFile;
  edited: boolean;
}

// The built forms are written once, at load, to a folder of their own (removed after the suite).
const builtDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reader-matrix-built-'));
const built: ManifestFile[] = (await buttonClassForms()).map((f) => {
  const file = path.join(builtDir, f.name);
  fs.writeFileSync(file, f.bytes);
  return {
    file,
    pageCount: 1,
    isEncrypted: false,
    hasXfa: false,
    validAcroForm: true,
    fieldCount: 1,
    tags: [],
    fields: [],
  };
});
/** READER_MATRIX_ONLY=text runs only the forms whose name contains it (e.g. "edited-"). */
const only = process.env.READER_MATRIX_ONLY;
const forms: MatrixForm[] = (
  dir
    ? [
        ...loadManifest()
          .files.filter((f) => f.validAcroForm)
          .map((entry) => ({ name: path.basename(entry.file), entry, edited: false })),
        ...loadManifest()
          .files.filter((f) => EDITED.includes(path.basename(f.file)))
          .map((entry) => ({ name: `edited-${path.basename(entry.file)}`, entry, edited: true })),
      ]
    : []
)
  .concat(built.map((entry) => ({ name: path.basename(entry.file), entry, edited: false })))
  .filter((f) => !only || f.name.includes(only));
const has = {
  qpdf: hasTool('qpdf'),
  pdftk: hasTool('pdftk'),
  pdftotext: hasTool('pdftotext'),
  pdftoppm: hasTool('pdftoppm'),
  mutool: hasTool('mutool'),
};
/**
 * Ink is the number of dark pixels of a page. A flattened page is measured against two drawings of
 * the same page: the interactive output (the same values, widgets drawn by the renderer) and the
 * template's own content (annotations hidden). Against the first it may lose 2% (anti-aliasing of
 * widgets drawn as page content instead of annotations); a blank page loses nearly all.
 *
 * The template drawn *with* its widgets is no lower bound: several templates are prefilled
 * (pdfbox-acroforms-basic-fields has a page of lorem ipsum in a field, qpdf-form-filled-with-atril
 * "Hagoogamagoogle") and our short values replace theirs, which rightly takes ink away.
 */
const INK_TOLERANCE = 0.98;
/**
 * Against the template's own content alone the tolerance is wider: a widget's appearance may cover
 * printed content on purpose (japan-jlpt's checkboxes have a white background and sit on the printed
 * digits 1-5 they select, so checking them all hides 3% of the page's ink). A lost page loses far more.
 */
const CONTENT_TOLERANCE = 0.9;
/** Resolution of the page drawings: low, for speed, but enough for a check mark in a small box. */
const DPI = 72;
/**
 * A checked box's rectangle must differ from the same box unchecked by at least this mean share of
 * full contrast: any visible change, as both drawings are otherwise identical (a missing mark
 * measures exactly 0). Change, not darkness, and a low bar: pdflib-fancy-fields draws light green
 * ZapfDingbats ticks on pink boxes, 0.4% in grey; most marks measure 2.5% and up at 72 dpi.
 */
const MARK_MIN = 0.001;
/**
 * A widget without the Print flag must leave its rectangle on the flattened page as the template's
 * own content has it: a mean change of at most this share of full contrast (anti-aliased edges of
 * neighbouring widgets; a drawn button measures 20% and up). Widgets overlapping a printing one are
 * not judged.
 */
const NOPRINT_MAX = 0.02;
const PRINT = 4;
const INVISIBLE = 2 | 32; // Hidden, NoView
/** External tools run at once per form, and forms worked on at once (CI has two cores). */
const TOOL_CONCURRENCY = 2;
const FORM_CONCURRENCY = 2;

/** Runs the thunks with at most `limit` of them pending at a time. */
async function limited<T>(limit: number, jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

/** A settled outcome: the value, or the error as text (a reader crashing is itself a finding). */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };
const settle = <T>(p: Promise<T>): Promise<Outcome<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, error: err instanceof Error ? err.message.slice(0, 500) : String(err) }),
  );

/**
 * Values for every fillable field, short Latin text so it fits: "Dupont <n>" for text and dates,
 * digits for numbers (cut to /MaxLen), checked boxes, the last option of radios and dropdowns, two
 * options of multi-select lists. Read-only fields are left alone (the engine does not fill them);
 * signature fields too (their value is a signature dictionary, not text any reader lists).
 */
function sampleValues(analysis: TemplateAnalysis): Record<string, FillValue> {
  const values: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly || f.type === 'signature') return;
    const key = f.pdfMeta.originalName;
    switch (f.type) {
      case 'checkbox':
        values[key] = { kind: 'check', checked: true };
        break;
      case 'radio':
      case 'dropdown': {
        const opts = f.options?.filter((x) => x.trim() !== '') ?? [];
        if (f.detail.multiSelect && opts.length > 1) values[key] = { kind: 'choices', values: opts.slice(0, 2) };
        else if (opts.length > 0) values[key] = { kind: 'choice', value: opts.at(-1)! };
        break;
      }
      default: {
        let text = f.type === 'number' ? String(4200 + i) : `Dupont ${i}`;
        if (f.maxLength) text = text.slice(0, f.maxLength);
        values[key] = { kind: 'text', text };
      }
    }
  });
  return values;
}

/** Text compared without whitespace (readers split and join drawn text differently) and in NFKC. */
const squash = (s: string) => s.normalize('NFKC').replace(/\s+/g, '');

/**
 * pdftk-java prints field names byte by byte as Latin-1 where they are not UTF-16 strings (see
 * nameAsLatin1), and PDFDocEncoding's own characters (0x80-0xa0) differ again: a name not found
 * as ours or as its Latin-1 bytes is matched with every non-ASCII character blanked out.
 */
const looseName = (s: string) => s.normalize('NFC').replace(/[^\x20-\x7e]/g, '?');

type Reader = 'pdftk' | 'pdf.js';

/**
 * How a reader prints a button's state name (a PDF name, whose bytes the engine reads as UTF-8, else
 * PDFDocEncoding): pdftk-java as one Latin-1 character per byte, pdf.js as a PDFDocEncoded text
 * string. Both are the same as ours for ASCII names.
 */
const stateAs = (reader: Reader, name: string): string[] =>
  reader === 'pdftk' ? [nameAsLatin1(name), pdfDocNameAsLatin1(name) ?? nameAsLatin1(name)] : [nameAsPdfjs(name)];

/**
 * The values a reader may report for a button value we wrote: the on-state name (as the reader
 * prints names) and, where the buttons have /Opt, the export value it stands for (pdftk reports
 * /Opt entries, pdf.js the state name; manifest btnOpt lists a checkbox's /Opt).
 */
function acceptedButtonValues(
  reader: Reader,
  info: AnalysedField,
  value: FillValue,
  btnOpt: string[] | undefined,
): string[] {
  if (value.kind === 'check') {
    return [...(info.detail.onStates ?? []).flatMap((s) => [s, ...stateAs(reader, s)]), ...(btnOpt ?? [])];
  }
  if (value.kind === 'choice' && info.type === 'radio') {
    const i = info.options?.indexOf(value.value) ?? -1;
    const state = i >= 0 ? info.detail.optionStates?.[i] : undefined;
    return [
      value.value,
      ...stateAs(reader, value.value),
      ...(state !== undefined ? [state, ...stateAs(reader, state)] : []),
    ];
  }
  return [];
}

/**
 * Whether what a reader reports for one field shows the value we wrote; undefined when the reader
 * cannot tell. `seen` is the field's value lines (pdftk) or value (pdf.js); `numItems` is how many
 * values pdf.js says a list box has selected (its getFieldObjects gives only the first as `value`).
 */
function shows(
  reader: Reader,
  info: AnalysedField,
  value: FillValue,
  seen: string[],
  btnOpt: string[] | undefined,
  numItems?: number,
): boolean | undefined {
  switch (value.kind) {
    case 'text':
      // pdftk prints an extra empty FieldValue line for some fields: the last line is the value
      return seen.at(-1) === value.text;
    case 'check': {
      const v = seen.at(-1);
      const on = info.detail.onStates ?? [];
      // pdf.js reports "Off" for a checkbox whose on-state name has bytes that PDFDocEncoding and
      // Latin-1 read differently (e.g. japan-jlpt's mis-decoded Shift-JIS names): it compares the
      // decoded /V with raw appearance keys. It cannot tell us anything about such a checkbox.
      if (reader === 'pdf.js' && v === 'Off' && on.length > 0 && !on.every(checkboxValueVisible)) return undefined;
      const accepted = acceptedButtonValues(reader, info, value, btnOpt);
      return !!v && v !== 'Off' && (on.length === 0 || accepted.includes(v));
    }
    case 'choice':
      if (reader === 'pdftk' && seen.at(-1) === 'Off' && pdftkCannotReport(info, value.value)) return undefined;
      if (info.type === 'radio') return acceptedButtonValues(reader, info, value, btnOpt).includes(seen.at(-1) ?? '');
      return seen.includes(value.value);
    case 'choices':
      if (reader === 'pdf.js')
        return seen.length === 1 && value.values.includes(seen[0]) && numItems === value.values.length;
      return value.values.every((v) => seen.includes(v));
    default:
      return undefined;
  }
}

interface FormRun {
  name: string;
  entry: ManifestFile;
  analysis: TemplateAnalysis;
  values: Record<string, FillValue>;
  byKey: Map<string, AnalysedField>;
  flatWarnings: string[];
  openWarnings: string[];
  qpdf: { open?: QpdfCheck; flat?: QpdfCheck };
  pdftk: { open?: Outcome<PdftkField[]>; flat?: Outcome<PdftkField[]>; template?: Outcome<PdftkField[]> };
  pdfjs: { open: Outcome<PdfjsReading>; flat: Outcome<PdfjsReading> };
  pdftotext?: Outcome<string[]>;
  ink: Partial<Record<Renderer, InkRuns>>;
}

interface InkRuns {
  /** the template's pages, own content only */
  template: Outcome<number[]>;
  /** the interactive output's pages, widgets drawn by the renderer */
  open: Outcome<Pgm[]>;
  flat: Outcome<Pgm[]>;
  /** every checked box or selected radio button: its rectangle flattened checked vs flattened unchecked */
  marks: Outcome<Mark[]>;
  /** the same, interactive checked vs interactive unchecked (widgets drawn by the renderer) */
  openMarks: Outcome<Mark[]>;
  /** every widget that does not print: how its rectangle on the flattened page differs from the template's content */
  nonPrinting: Outcome<Mark[]>;
}

/** How much one widget's rectangle differs between two drawings of its page. */
interface Mark {
  key: string;
  page: number;
  /** sum of |grey a - grey b| over the rectangle's pixels */
  change: number;
  pixels: number;
}

async function pdftotextPages(file: string): Promise<string[]> {
  // -raw keeps content-stream order, so the text of one flattened widget stays together
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', '-raw', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\f');
}

/** The template of a matrix form: the corpus file, or the field editor's output written beside the outputs. */
async function templateOf(form: MatrixForm, tmp: string): Promise<string> {
  const file = path.isAbsolute(form.entry.file) ? form.entry.file : path.join(dir!, form.entry.file);
  if (!form.edited) return file;
  const source = new Uint8Array(fs.readFileSync(file));
  const before = await analyse(source).catch(() => undefined); // a PDF without a form has nothing to analyse
  const edited = path.join(tmp, `${form.name.replace(/\.pdf$/i, '')}-template.pdf`);
  fs.writeFileSync(edited, await editFields(source, sampleEdits(before).edits));
  return edited;
}

async function runForm(form: MatrixForm, tmp: string): Promise<FormRun> {
  const { name, entry } = form;
  const templatePath = await templateOf(form, tmp);
  const bytes = new Uint8Array(fs.readFileSync(templatePath));
  const analysis = await analyse(bytes);
  const values = sampleValues(analysis);
  // prepared once for the three renders, as an engine does
  const cache = new TemplateCache({ maxEntries: 1, maxBytes: 256 * 1024 * 1024 });
  const open = await fillPdf(bytes, analysis, { values, flatten: false }, name, cache);
  const flat = await fillPdf(bytes, analysis, { values, flatten: true }, name, cache);
  // The same with every box unchecked and every radio group cleared: the reference for the marks.
  const offValues = Object.fromEntries(
    Object.entries(values).map(([k, v]): [string, FillValue] =>
      v.kind === 'check'
        ? [k, { kind: 'check', checked: false }]
        : v.kind === 'choice' && byKeyOf(analysis, k)?.type === 'radio'
          ? [k, { kind: 'clear' }]
          : [k, v],
    ),
  );
  const flatOff = await fillPdf(bytes, analysis, { values: offValues, flatten: true }, name, cache);
  const openOff = await fillPdf(bytes, analysis, { values: offValues, flatten: false }, name, cache);
  const base = path.join(tmp, name.replace(/\.pdf$/i, ''));
  fs.mkdirSync(base, { recursive: true });
  const openPath = path.join(base, 'open.pdf');
  const flatPath = path.join(base, 'flat.pdf');
  const flatOffPath = path.join(base, 'flat-unchecked.pdf');
  const openOffPath = path.join(base, 'open-unchecked.pdf');
  fs.writeFileSync(openPath, open.bytes);
  fs.writeFileSync(flatPath, flat.bytes);
  fs.writeFileSync(flatOffPath, flatOff.bytes);
  fs.writeFileSync(openOffPath, openOff.bytes);

  const r: FormRun = {
    name,
    entry,
    analysis,
    values,
    byKey: new Map(analysis.fields.map((f) => [f.pdfMeta.originalName, f])),
    openWarnings: open.warnings,
    flatWarnings: flat.warnings,
    qpdf: {},
    pdftk: {},
    pdfjs: {
      open: await settle(readWithPdfjs(open.bytes)),
      flat: await settle(readWithPdfjs(flat.bytes, { text: true })),
    },
    ink: {},
  };
  const jobs: (() => Promise<unknown>)[] = [];
  if (has.qpdf) {
    jobs.push(async () => (r.qpdf.open = await qpdfCheck(openPath)));
    jobs.push(async () => (r.qpdf.flat = await qpdfCheck(flatPath)));
  }
  if (has.pdftk) {
    jobs.push(async () => (r.pdftk.open = await settle(pdftkFields(openPath))));
    jobs.push(async () => (r.pdftk.flat = await settle(pdftkFields(flatPath))));
    jobs.push(async () => (r.pdftk.template = await settle(pdftkFields(templatePath))));
  }
  if (has.pdftotext) jobs.push(async () => (r.pdftotext = await settle(pdftotextPages(flatPath))));
  for (const [renderer, ok] of [
    ['poppler', has.pdftoppm],
    ['mupdf', has.mutool],
  ] as const) {
    if (!ok) continue;
    const slot: Partial<InkRuns> = {};
    const sub = (name: string) => path.join(base, `${renderer}-${name}`);
    const ink = (file: string, name: string, annotations: AnnotationMode) =>
      settle(renderPages(renderer, file, sub(name), { annotations, dpi: DPI }));
    // MuPDF tags unsigned signature widgets with a "sign here" mark of its own: not in the file, so
    // not in the flattened page either. The baseline leaves signature widgets out (poppler adds nothing).
    const widgets = renderer === 'mupdf' ? 'no-signatures' : 'all';
    jobs.push(async () => {
      const [on, off] = await Promise.all([
        ink(openPath, 'open', widgets),
        ink(openOffPath, 'open-unchecked', widgets),
      ]);
      slot.open = on;
      slot.openMarks = !on.ok ? on : !off.ok ? off : settleNow(() => marks(r, on.value, off.value));
    });
    jobs.push(async () => {
      // the drawings compared pixel by pixel at once: the template's content, the flattened output, and
      // the flattened output with every box unchecked; only numbers are kept
      const [content, on, off] = await Promise.all([
        settle(renderPages(renderer, templatePath, sub('template'), { dpi: DPI, annotations: 'none' })),
        settle(renderPages(renderer, flatPath, sub('flat'), { dpi: DPI })),
        settle(renderPages(renderer, flatOffPath, sub('flat-unchecked'), { dpi: DPI })),
      ]);
      slot.template = content.ok ? { ok: true, value: content.value.map((img) => darkPixels(img)) } : content;
      slot.flat = on;
      slot.marks = !on.ok ? on : !off.ok ? off : settleNow(() => marks(r, on.value, off.value));
      slot.nonPrinting = !on.ok ? on : !content.ok ? content : settleNow(() => nonPrinting(r, on.value, content.value));
    });
    r.ink[renderer] = slot as InkRuns;
  }
  await limited(TOOL_CONCURRENCY, jobs);
  return r;
}

const byKeyOf = (analysis: TemplateAnalysis, key: string) =>
  analysis.fields.find((f) => f.pdfMeta.originalName === key);

function settleNow<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The rectangle of every widget that should show a mark (all widgets of a checked box, the chosen
 * button of a radio group), as pdf.js places it on the interactive output, measured in both
 * flattened drawings. Fields pdf.js does not list are left to the value checks.
 */
function marks(r: FormRun, on: Pgm[], off: Pgm[]): Mark[] {
  const reading = need(r.pdfjs.open, 'pdf.js on the interactive output');
  const fields = reading.fields ?? {};
  const out: Mark[] = [];
  for (const [key, value] of Object.entries(r.values)) {
    const info = r.byKey.get(key)!;
    if (value.kind !== 'check' && !(value.kind === 'choice' && info.type === 'radio')) continue;
    if (warned(r, key, /hidden|not printed|no on-state|no button/)) continue;
    const entries = fields[key] ?? [];
    // The widgets that are on: those whose on-state is the field's value as pdf.js reports it (a
    // checkbox field may have kids with different on-states, e.g. Book/Card/Both, and only one is
    // on). Where pdf.js cannot report the value (non-ASCII names, see shows()), every widget whose
    // on-state is one we accept.
    const reported = String(pdfjsValue(entries));
    const accepted = reported !== 'Off' ? [reported] : acceptedButtonValues('pdf.js', info, value, btnOpt(r, key));
    for (const w of entries) {
      if (w.kidIds || !w.rect || w.page === undefined || w.page < 0 || w.hidden) continue;
      if (w.type !== 'radiobutton' && w.type !== 'checkbox') continue;
      if (!accepted.includes(String(w.exportValues))) continue;
      const px = toPixels(w.rect, reading.pageTransforms[w.page], DPI);
      if (!on[w.page] || !off[w.page]) throw new Error(`page ${w.page + 1} was not drawn`);
      const { change, pixels } = changeIn(on[w.page], off[w.page], px);
      if (pixels === 0) continue; // off the drawn page (outside the crop box)
      out.push({ key, page: w.page + 1, change, pixels });
    }
  }
  return out;
}

const overlap = (a: number[], b: number[]) =>
  Math.min(a[0], a[2]) < Math.max(b[0], b[2]) &&
  Math.min(b[0], b[2]) < Math.max(a[0], a[2]) &&
  Math.min(a[1], a[3]) < Math.max(b[1], b[3]) &&
  Math.min(b[1], b[3]) < Math.max(a[1], a[3]);

/**
 * Every visible widget of the interactive output without the Print flag that overlaps no printing
 * widget: how much its rectangle on the flattened page differs from the template's own content.
 */
function nonPrinting(r: FormRun, flat: Pgm[], content: Pgm[]): Mark[] {
  const reading = need(r.pdfjs.open, 'pdf.js on the interactive output');
  const visible = reading.widgets.filter((w) => !(w.flags & INVISIBLE));
  const out: Mark[] = [];
  for (const w of visible) {
    if (w.flags & PRINT) continue;
    if (visible.some((o) => o !== w && o.page === w.page && o.flags & PRINT && overlap(o.rect, w.rect))) continue;
    if (!flat[w.page] || !content[w.page]) throw new Error(`page ${w.page + 1} was not drawn`);
    const { change, pixels } = changeIn(
      flat[w.page],
      content[w.page],
      toPixels(w.rect, reading.pageTransforms[w.page], DPI),
    );
    if (pixels > 0) out.push({ key: w.fieldName, page: w.page + 1, change, pixels });
  }
  return out;
}

/**
 * Pixel rectangles of the visible widgets without the Print flag, per 0-based page, grown by 2 px:
 * renderers anti-alias a widget's border into the pixels just outside its rectangle.
 */
function screenOnlyRects(r: FormRun): [number, number, number, number][][] {
  const reading = need(r.pdfjs.open, 'pdf.js on the interactive output');
  const out: [number, number, number, number][][] = [];
  for (const w of reading.widgets) {
    if (w.flags & INVISIBLE || w.flags & PRINT) continue;
    const [x0, y0, x1, y1] = toPixels(w.rect, reading.pageTransforms[w.page], DPI);
    const grow = 2;
    (out[w.page] ??= []).push([
      Math.min(x0, x1) - grow,
      Math.min(y0, y1) - grow,
      Math.max(x0, x1) + grow,
      Math.max(y0, y1) + grow,
    ]);
  }
  return out;
}

/** The warning that names the field (by its schema name, or its PDF name `key`) and says `what`, if any. */
const warning = (r: FormRun, key: string, what: RegExp) =>
  r.flatWarnings.find((w) => (w.includes(`"${key}"`) || w.includes(`"${r.byKey.get(key)?.name}"`)) && what.test(w));
const warned = (r: FormRun, key: string, what: RegExp) => warning(r, key, what) !== undefined;

/**
 * Text values that must show once flattened: not those the engine said are hidden, screen-only or
 * signed; of a value it said was cut, the characters its warning counts as shown.
 */
function shownTexts(r: FormRun): [string, string, number][] {
  return Object.entries(r.values)
    .filter(([key, v]) => v.kind === 'text' && !warned(r, key, /hidden|not printed|signed/))
    .map(([key, v]): [string, string, number] => {
      const text = (v as { text: string }).text;
      const cut = warning(r, key, /cut off/);
      const chars = cut && /\((\d+) of \d+ characters shown\)/.exec(cut);
      const shown = chars ? Array.from(text).slice(0, Number(chars[1])).join('') : cut ? '' : text;
      return [key, shown, r.byKey.get(key)!.pdfMeta.page];
    })
    .filter(([, shown]) => shown.trim() !== '');
}

/** The checkbox/radio /Opt export values the manifest lists for a field. */
const btnOpt = (r: FormRun, key: string) => r.entry.fields.find((f) => f.fullName === key)?.btnOpt;

function need<T>(o: Outcome<T> | undefined, what: string): T {
  if (!o) throw new Error(`${what}: not run`);
  if (!o.ok) throw new Error(`${what} failed: ${o.error}`);
  return o.value;
}

describe(`reader matrix over the corpus${dir ? '' : ' (not found: ../shared/corpus or CORPUS_DIR)'} and the built forms`, () => {
  let tmp: string;
  afterAll(() => {
    fs.rmSync(builtDir, { recursive: true, force: true });
    if (!process.env.KEEP_READER_MATRIX) fs.rmSync(tmp, { recursive: true, force: true });
    else console.log(`reader matrix outputs kept in ${tmp}`);
  });

  // Forms are worked on FORM_CONCURRENCY at a time, ahead of their tests, so one form's Node work
  // (fill, pdf.js) overlaps another's external tools; each form's tests wait for their own form.
  const runs = new Map<string, Promise<FormRun>>();
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reader-matrix-'));
    let next = 0;
    const start = () => {
      const form = forms[next++];
      if (!form) return;
      const p = runForm(form, tmp);
      runs.set(form.name, p);
      void p.catch(() => {}).finally(start);
    };
    for (let i = 0; i < FORM_CONCURRENCY; i++) start();
  });

  for (const { name } of forms) {
    describe(name, () => {
      let r: FormRun;
      beforeAll(async () => {
        // the form may not have been started yet: wait until it has
        while (!runs.has(name)) await new Promise((resolve) => setTimeout(resolve, 50));
        r = await runs.get(name)!;
      }, 180_000);

      it.skipIf(!has.qpdf)('passes qpdf --check without errors, interactive and flattened', () => {
        // exit code 2 is errors; 3 is warnings only (many templates carry warnings of their own)
        expect(r.qpdf.open!.code, r.qpdf.open!.output).not.toBe(2);
        expect(r.qpdf.flat!.code, r.qpdf.flat!.output).not.toBe(2);
      });

      it.skipIf(!has.pdftk)('shows every written value to pdftk when not flattened', (ctx) => {
        const open = r.pdftk.open!;
        if (!open.ok && !r.pdftk.template!.ok) {
          // pdftk-java cannot read this template at all (manifest crossCheck.pdftkError): not ours to judge
          ctx.skip();
          return;
        }
        const fields = need(open, 'pdftk dump_data_fields_utf8 on the interactive output (it reads the template)');
        const exact = new Map(fields.map((f) => [f.name, f.values]));
        const loose = new Map(fields.map((f) => [looseName(f.name), f.values]));
        const wrong: string[] = [];
        for (const [key, value] of Object.entries(r.values)) {
          const info = r.byKey.get(key)!;
          const seen = exact.get(key) ?? exact.get(nameAsLatin1(key)) ?? loose.get(looseName(key));
          if (!seen) wrong.push(`${key}: not listed by pdftk`);
          else if (shows('pdftk', info, value, seen, btnOpt(r, key)) === false) {
            wrong.push(`${key}: wrote ${JSON.stringify(value)}, pdftk has ${JSON.stringify(seen)}`);
          }
        }
        expect(wrong).toEqual([]);
      });

      it('shows every written value to pdf.js getFieldObjects when not flattened', () => {
        const fields = need(r.pdfjs.open, 'pdf.js on the interactive output').fields ?? {};
        const wrong: string[] = [];
        for (const [key, value] of Object.entries(r.values)) {
          const info = r.byKey.get(key)!;
          const entries = fields[key];
          if (!entries) {
            wrong.push(`${key}: not listed by pdf.js`);
            continue;
          }
          const seen = asStrings(pdfjsValue(entries));
          const numItems = entries.find((e: PdfjsFieldObject) => e.numItems !== undefined)?.numItems;
          if (shows('pdf.js', info, value, seen, btnOpt(r, key), numItems) === false) {
            wrong.push(
              `${key}: wrote ${JSON.stringify(value)}, pdf.js has ${JSON.stringify(seen)}${numItems !== undefined ? ` of ${numItems}` : ''}`,
            );
          }
        }
        expect(wrong).toEqual([]);
      });

      it('leaves no field for pdftk or pdf.js when flattened', (ctx) => {
        const fields = need(r.pdfjs.flat, 'pdf.js on the flattened output').fields;
        expect(Object.keys(fields ?? {}), 'fields pdf.js still lists').toEqual([]);
        if (!has.pdftk) return;
        const flat = r.pdftk.flat!;
        if (!flat.ok && !r.pdftk.template!.ok) {
          ctx.skip(); // pdftk-java cannot read this template at all
          return;
        }
        expect(
          need(flat, 'pdftk on the flattened output').map((f) => f.name),
          'fields pdftk still lists',
        ).toEqual([]);
      });

      it.skipIf(!has.pdftotext)('shows every text value to pdftotext on its page when flattened', () => {
        const pages = need(r.pdftotext, 'pdftotext on the flattened output').map(squash);
        const absent = shownTexts(r)
          .filter(([, text, page]) => !pages[page - 1]?.includes(squash(text)))
          .map(([key, text, page]) => `p${page} ${key}: ${text}`);
        expect(absent).toEqual([]);
      });

      it('shows every text value to pdf.js getTextContent on its page when flattened', () => {
        const pages = need(r.pdfjs.flat, 'pdf.js on the flattened output').pageTexts.map(squash);
        const absent = shownTexts(r)
          .filter(([, text, page]) => !pages[page - 1]?.includes(squash(text)))
          .map(([key, text, page]) => `p${page} ${key}: ${text}`);
        expect(absent).toEqual([]);
      });

      for (const [renderer, tool, ok] of [
        ['poppler', 'pdftoppm', has.pdftoppm],
        ['mupdf', 'mutool draw', has.mutool],
      ] as const) {
        it.skipIf(!ok)(`keeps at least the ink of every page when flattened, drawn by ${tool}`, () => {
          const ink = r.ink[renderer]!;
          const template = need(ink.template, `${tool} on the template without annotations`);
          const open = need(ink.open, `${tool} on the interactive output`);
          const flat = need(ink.flat, `${tool} on the flattened output`);
          expect(open.length, 'pages drawn, interactive').toBe(template.length);
          expect(flat.length, 'pages drawn, flattened').toBe(template.length);
          // The interactive drawing shows screen-only widgets (a Print / Reset button bar) that print,
          // and so flatten, to nothing: both drawings are counted outside them.
          const screenOnly = screenOnlyRects(r);
          const outside = (img: Pgm | undefined, page: number) =>
            img ? darkPixelsOutside(img, screenOnly[page] ?? []) : 0;
          const lost = template
            .map((t, i) => ({
              page: i + 1,
              templateContent: t,
              interactive: outside(open[i], i),
              flattened: outside(flat[i], i),
            }))
            .filter(
              (p) =>
                p.flattened < Math.floor(p.interactive * INK_TOLERANCE) ||
                p.flattened < Math.floor(p.templateContent * CONTENT_TOLERANCE),
            );
          expect(lost).toEqual([]);
        });
        for (const flattened of [true, false]) {
          it.skipIf(!ok)(
            `draws a mark in every checked box and chosen radio button when ${flattened ? 'flattened' : 'not flattened'}, drawn by ${tool}`,
            () => {
              const ink = r.ink[renderer]!;
              const found = need(
                flattened ? ink.marks : ink.openMarks,
                `${tool} on the ${flattened ? 'flattened' : 'interactive'} outputs`,
              );
              const blank = found
                .filter((m) => m.change < MARK_MIN * m.pixels * 255)
                .map(
                  (m) =>
                    `p${m.page} ${m.key}: checked differs from unchecked by ${((100 * m.change) / (m.pixels * 255)).toFixed(1)}%`,
                );
              expect(blank).toEqual([]);
            },
          );
        }

        it.skipIf(!ok)(`leaves out widgets that do not print when flattened, drawn by ${tool}`, () => {
          const drawn = need(r.ink[renderer]!.nonPrinting, `${tool} on the flattened output and the template`)
            .filter((m) => m.change > NOPRINT_MAX * m.pixels * 255)
            .map(
              (m) =>
                `p${m.page} ${m.key}: differs from the template's content by ${((100 * m.change) / (m.pixels * 255)).toFixed(1)}%`,
            );
          expect(drawn).toEqual([]);
        });
      }
    });
  }
});

// ---- the defect classes of issue 22, on forms built for each (test/helpers/fidelity-forms.ts) --------------------
// Each form goes through the whole engine path (render data validated and formatted, then filled),
// kept interactive and flattened, and is drawn in colour by poppler, MuPDF and pdf.js.

const COLOR_RENDERERS: [ColorRenderer, boolean][] = [
  ['poppler', has.pdftoppm],
  ['mupdf', has.mutool],
  ['pdf.js', true],
];

/** Fills `bytes` with render `data` (validated and formatted as the API does) and writes both outputs. */
async function renderCase(
  bytes: Uint8Array,
  data: Record<string, unknown>,
  file: string,
): Promise<{ open: string; flat: string; warnings: string[] }> {
  const analysis = await analyse(bytes);
  const { values } = validateData(analysis.fields, data, { strict: false, locale: 'en-US', timezone: 'UTC' });
  const paths = { open: `${file}.open.pdf`, flat: `${file}.flat.pdf` };
  let warnings: string[] = [];
  for (const flatten of [false, true]) {
    const out = await fillPdf(bytes, analysis, { values, flatten });
    fs.writeFileSync(flatten ? paths.flat : paths.open, out.bytes);
    warnings = out.warnings;
  }
  return { ...paths, warnings };
}

describe('reader matrix over the defect classes of issue 22', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reader-matrix-classes-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('AFNumber formats: JavaScript escapes in the currency, red for negatives (item 3)', () => {
    const cases = { positive: 1234.5, negative: -1234.5 };
    const outputs: Record<string, { open: string; flat: string }> = {};
    beforeAll(async () => {
      const bytes = await amountsForm();
      for (const [sign, n] of Object.entries(cases))
        outputs[sign] = await renderCase(bytes, { euro: n, pound: n, plain: n }, path.join(tmp, `amounts-${sign}`));
    });

    it('stores the currency symbols in /V for pdf.js, and pdftotext reads them on the flattened page', async () => {
      const open = await readWithPdfjs(fs.readFileSync(outputs.negative.open));
      expect(pdfjsValue(open.fields!.euro)).toBe('-€ 1,234.50');
      expect(pdfjsValue(open.fields!.pound)).toBe('(£1,234.50)');
      if (!has.pdftotext) return;
      const text = (await pdftotextPages(outputs.positive.flat))[0];
      expect(text).toContain('€ 1,234.50');
      expect(text).toContain('£1,234.50');
      expect(text).not.toMatch(/u20ac|xa3/);
    });

    for (const [renderer, ok] of COLOR_RENDERERS) {
      for (const mode of ['open', 'flat'] as const) {
        it.skipIf(!ok)(
          `draws negatives red and positives black over a red /DA (negStyle 1, 3), and keeps the /DA red otherwise: ${renderer}, ${mode === 'flat' ? 'flattened' : 'interactive'}`,
          async () => {
            const seen: Record<string, string> = {};
            for (const sign of Object.keys(cases)) {
              const img = await renderRgb(renderer, outputs[sign][mode], 1);
              for (const name of ['euro', 'pound', 'plain']) {
                const ink = colorInkIn(img, pixelsOf(AMOUNT_RECTS[name], 300));
                seen[`${name} ${sign}`] =
                  ink.red > 20 && ink.red > 4 * ink.dark ? 'red' : ink.dark > 20 ? 'black' : 'none';
              }
            }
            expect(seen).toEqual({
              'euro positive': 'black',
              'pound positive': 'black',
              'plain positive': 'red',
              'euro negative': 'red',
              'pound negative': 'red',
              'plain negative': 'red',
            });
          },
        );
      }
    }
  });
  describe('encrypted forms whose strings are literal ( ) strings, every scheme (item 4)', () => {
    const outputs = new Map<string, { open: string; flat: string }>();
    const data = {
      'Sec\\.A': 'new \\value',
      'Total (net)': 'net (1) \\',
      'Path\\': 'D:\\out\\',
      '小(名)': '小林 (名) \\',
    };
    beforeAll(async () => {
      const plain = await escapedStringsForm();
      for (const scheme of Object.keys(ENCRYPTIONS) as (keyof typeof ENCRYPTIONS)[]) {
        if (!has.qpdf) break;
        const bytes = encryptWithLiteralStrings(plain, scheme, tmp);
        outputs.set(scheme, await renderCase(bytes, data, path.join(tmp, `encrypted-${scheme.replace(/\W/g, '')}`)));
      }
    });
    const squashed = Object.values(data).map(squash);

    it.skipIf(!has.qpdf)('keeps every field and value for pdf.js, interactive and flattened', async () => {
      for (const [scheme, out] of outputs) {
        const open = await readWithPdfjs(fs.readFileSync(out.open));
        const seen = Object.fromEntries(Object.entries(open.fields ?? {}).map(([k, v]) => [k, pdfjsValue(v)]));
        expect(seen, scheme).toEqual(data);
        const flat = squash((await readWithPdfjs(fs.readFileSync(out.flat), { text: true })).pageTexts[0]);
        for (const text of squashed) expect(flat, scheme).toContain(text);
      }
    });

    for (const [renderer, ok] of [
      ['poppler', has.qpdf && has.pdftotext && has.pdftoppm],
      ['mupdf', has.qpdf && has.mutool],
    ] as const) {
      it.skipIf(!ok)(`shows every value, interactive and flattened: ${renderer}`, async () => {
        for (const [scheme, out] of outputs) {
          const text =
            renderer === 'poppler'
              ? (await pdftotextPages(out.flat))[0]
              : (await run('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', out.flat])).stdout;
          for (const value of squashed) expect(squash(text), scheme).toContain(value);
          // interactive: each field's widget shows ink where its value is drawn
          const img = await renderRgb(renderer, out.open, 1);
          const blank = [240, 190, 140, 90].filter(
            (y) => colorInkIn(img, pixelsOf([40, y, 360, y + 24], 300)).dark < 20,
          );
          expect(blank, scheme).toEqual([]);
        }
      });
    }
  });
  describe('a number comb of MaxLen 2 given 1234.5 in non-strict mode: cut as text is (item 7)', () => {
    let out: { open: string; flat: string; warnings: string[] };
    beforeAll(async () => {
      out = await renderCase(await amountsForm(), { comb: 1234.5 }, path.join(tmp, 'comb'));
    });

    it('stores the value cut to MaxLen, so /V is what the page shows: pdf.js', async () => {
      const open = await readWithPdfjs(fs.readFileSync(out.open));
      expect(pdfjsValue(open.fields!.comb)).toBe('12');
      const flat = await readWithPdfjs(fs.readFileSync(out.flat), { text: true });
      expect(squash(flat.pageTexts[0])).toBe('12');
    });

    it.skipIf(!has.pdftotext || !has.mutool)('shows 12 on the flattened page: poppler and MuPDF', async () => {
      expect(squash((await pdftotextPages(out.flat))[0])).toBe('12');
      const { stdout } = await run('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', out.flat]);
      expect(squash(stdout)).toBe('12');
    });

    for (const [renderer, ok] of COLOR_RENDERERS) {
      it.skipIf(!ok)(`draws two digits in the comb, interactive and flattened: ${renderer}`, async () => {
        for (const file of [out.open, out.flat]) {
          const img = await renderRgb(renderer, file, 1);
          const [x0, y0, x1, y1] = AMOUNT_RECTS.comb;
          const cells = [
            [x0, y0, (x0 + x1) / 2, y1],
            [(x0 + x1) / 2, y0, x1, y1],
          ].map((cell) => colorInkIn(img, pixelsOf(cell, 300)).dark);
          expect(
            cells.every((dark) => dark > 8),
            `${file}: ${cells}`,
          ).toBe(true);
        }
      });
    }
  });
  describe('NoRotate widgets on rotated pages, and a field outside its page (item 8)', () => {
    const ROTATIONS = [90, 180, 270];
    let out: { open: string; flat: string };
    let outside: { warnings: string[] };
    beforeAll(async () => {
      const bytes = await noRotateForm(ROTATIONS);
      const data = Object.fromEntries(
        ROTATIONS.flatMap((r) => [
          [`upright${r}`, 'Upright'],
          [`turned${r}`, 'Turned'],
        ]),
      );
      out = await renderCase(bytes, data, path.join(tmp, 'norotate'));
      outside = await renderCase(
        await outsideBoxesForm(),
        { inside: 'In', cropped: 'Gone', offPage: 'Gone' },
        path.join(tmp, 'outside'),
      );
    });

    /**
     * Where a viewer shows a NoRotate widget of the 400 x 300 page turned `r` degrees, in pixels at
     * 72 dpi of the page as shown: its /Rect's upper-left corner stays put and the box stays upright.
     */
    const uprightBox = (r: number): [number, number, number, number] => {
      const [x0, y0, x1, y1] = NOROTATE_RECT;
      const [px, py] = [x0, y1];
      const [dx, dy] = r === 90 ? [py, px] : r === 180 ? [400 - px, py] : [300 - py, 400 - px];
      return [dx, dy, dx + (x1 - x0), dy + (y1 - y0)];
    };

    for (const [renderer, ok] of COLOR_RENDERERS) {
      it.skipIf(!ok)(`shows each NoRotate value upright where viewers show it unflattened: ${renderer}`, async () => {
        for (const [i, r] of ROTATIONS.entries()) {
          const flat = colorInkIn(await renderRgb(renderer, out.flat, i + 1), uprightBox(r)).dark;
          expect(flat, `flattened, page turned ${r}`).toBeGreaterThan(40);
          // pdf.js draws NoRotate widgets in its HTML annotation layer, not on the page canvas
          if (renderer === 'pdf.js') continue;
          const open = colorInkIn(await renderRgb(renderer, out.open, i + 1), uprightBox(r)).dark;
          expect(Math.abs(flat - open), `page turned ${r}: flattened ${flat}, interactive ${open}`).toBeLessThan(
            0.15 * open,
          );
        }
      });
    }

    it('keeps the NoRotate flag for pdf.js in the interactive output', async () => {
      const read = await readWithPdfjs(fs.readFileSync(out.open));
      const upright = read.widgets.filter((w) => w.fieldName.startsWith('upright'));
      expect(upright.map((w) => w.flags & 16)).toEqual([16, 16, 16]);
    });

    it('warns about the values no viewer can show, naming their fields', () => {
      expect(outside.warnings.filter((w) => w.includes('outside')).map((w) => w.split('"')[1])).toEqual([
        'cropped',
        'offPage',
      ]);
    });
  });
});
