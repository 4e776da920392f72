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
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import type { AnalysedField, FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { buttonClassForms } from '../helpers/button-forms.js';
import { corpusDir, loadManifest, type ManifestFile } from '../helpers/corpus.js';
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

const run = promisify(execFile);
const dir = corpusDir();
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
const forms = [...(dir ? loadManifest().files.filter((f) => f.validAcroForm) : []), ...built];
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

async function runForm(entry: ManifestFile, tmp: string): Promise<FormRun> {
  const name = path.basename(entry.file);
  const templatePath = path.isAbsolute(entry.file) ? entry.file : path.join(dir!, entry.file);
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
      const entry = forms[next++];
      if (!entry) return;
      const name = path.basename(entry.file);
      const p = runForm(entry, tmp);
      runs.set(name, p);
      void p.catch(() => {}).finally(start);
    };
    for (let i = 0; i < FORM_CONCURRENCY; i++) start();
  });

  for (const entry of forms) {
    const name = path.basename(entry.file);
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
