// The reader matrix (issue "Form fidelity"): every valid corpus form is filled in-process, once kept
// interactive and once flattened, and each output is judged only by independent readers:
//   qpdf --check                      both outputs: no errors (exit code 2)
//   pdftk dump_data_fields_utf8       interactive: every value written; flattened: no field left
//   pdf.js getFieldObjects()          interactive: every value written; flattened: no field left
//   pdftotext, pdf.js getTextContent  flattened: every text value on its field's page
//   pdftoppm and mutool draw          flattened: every page keeps at least the ink of the template's page
// Known engine faults make some forms fail here on purpose; the test is not bent around them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analyse.js';
import { fillPdf } from '../../src/pdf/fill.js';
import type { AnalysedField, FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir, loadManifest, type ManifestFile } from '../helpers/corpus.js';
import { inkPerPage, type Renderer } from '../helpers/ink.js';
import { asStrings, pdfjsValue, readWithPdfjs, type PdfjsReading } from '../helpers/pdfjs.js';
import { hasTool, pdftkFields, qpdfCheck, type PdftkField, type QpdfCheck } from '../helpers/pdf-tools.js';

const run = promisify(execFile);
const dir = corpusDir();
const forms = dir ? loadManifest().files.filter((f) => f.validAcroForm) : [];
const has = {
  qpdf: hasTool('qpdf'),
  pdftk: hasTool('pdftk'),
  pdftotext: hasTool('pdftotext'),
  pdftoppm: hasTool('pdftoppm'),
  mutool: hasTool('mutool'),
};
/** A flattened page may show slightly less ink than the template's (anti-aliasing of redrawn widgets, a field's
 * old value replaced by a shorter one): 2% of the template's dark pixels. A blank page loses nearly all. */
const INK_TOLERANCE = 0.98;
/** External tools run at once per form (CI has two cores). */
const TOOL_CONCURRENCY = Math.max(2, Math.min(4, os.availableParallelism()));

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
 * pdftk-java prints a name stored in PDFDocEncoding as if it were Latin-1, so names with non-ASCII
 * characters may differ from ours in exactly those characters: such names are also matched with
 * every non-ASCII character blanked out.
 */
const looseName = (s: string) => s.normalize('NFC').replace(/[^\x20-\x7e]/g, '?');

/** The values a reader may report for a button value we wrote: the on-state names and, for radios with /Opt, the option itself. */
function acceptedButtonValues(info: AnalysedField, value: FillValue): string[] {
  if (value.kind === 'check') return info.detail.onStates ?? [];
  if (value.kind === 'choice' && info.type === 'radio') {
    const i = info.options?.indexOf(value.value) ?? -1;
    return [value.value, ...(i >= 0 && info.detail.optionStates?.[i] !== undefined ? [info.detail.optionStates[i]] : [])];
  }
  return [];
}

/** Whether the strings a reader reports for one field show the value we wrote; undefined when this check has no opinion. */
function shows(info: AnalysedField, value: FillValue, seen: string[]): boolean | undefined {
  switch (value.kind) {
    case 'text':
      // pdftk prints an extra empty FieldValue line for some fields: the last line is the value
      return seen.at(-1) === value.text;
    case 'check': {
      const on = acceptedButtonValues(info, value);
      const v = seen.at(-1);
      return !!v && v !== 'Off' && (on.length === 0 || on.includes(v));
    }
    case 'choice':
      if (info.type === 'radio') return acceptedButtonValues(info, value).includes(seen.at(-1) ?? '');
      return seen.includes(value.value);
    case 'choices':
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
  ink: Partial<Record<Renderer, { template: Outcome<number[]>; flat: Outcome<number[]> }>>;
}

async function pdftotextPages(file: string): Promise<string[]> {
  // -raw keeps content-stream order, so the text of one flattened widget stays together
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', '-raw', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\f');
}

async function runForm(entry: ManifestFile, tmp: string): Promise<FormRun> {
  const name = path.basename(entry.file);
  const templatePath = path.join(dir!, entry.file);
  const bytes = new Uint8Array(fs.readFileSync(templatePath));
  const analysis = await analyse(bytes);
  const values = sampleValues(analysis);
  const open = await fillPdf(bytes, analysis, { values, flatten: false });
  const flat = await fillPdf(bytes, analysis, { values, flatten: true });
  const base = path.join(tmp, name.replace(/\.pdf$/i, ''));
  fs.mkdirSync(base, { recursive: true });
  const openPath = path.join(base, 'open.pdf');
  const flatPath = path.join(base, 'flat.pdf');
  fs.writeFileSync(openPath, open.bytes);
  fs.writeFileSync(flatPath, flat.bytes);

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
  for (const [renderer, ok] of [['poppler', has.pdftoppm], ['mupdf', has.mutool]] as const) {
    if (!ok) continue;
    const slot: { template?: Outcome<number[]>; flat?: Outcome<number[]> } = {};
    jobs.push(async () => (slot.template = await settle(inkPerPage(renderer, templatePath, path.join(base, `${renderer}-template`)))));
    jobs.push(async () => (slot.flat = await settle(inkPerPage(renderer, flatPath, path.join(base, `${renderer}-flat`)))));
    r.ink[renderer] = slot as { template: Outcome<number[]>; flat: Outcome<number[]> };
  }
  await limited(TOOL_CONCURRENCY, jobs);
  return r;
}

/** The warning that names `key` and says `what`, if the engine gave one. */
const warned = (warnings: string[], key: string, what: RegExp) => warnings.some((w) => w.includes(`"${key}"`) && what.test(w));

/** Text values that must show once flattened: not those the engine said are hidden or cut off. */
function shownTexts(r: FormRun): [string, string, number][] {
  return Object.entries(r.values)
    .filter(([key, v]) => v.kind === 'text' && !warned(r.flatWarnings, key, /hidden|signed|cut off/))
    .map(([key, v]) => [key, (v as { text: string }).text, r.byKey.get(key)!.pdfMeta.page]);
}

function need<T>(o: Outcome<T> | undefined, what: string): T {
  if (!o) throw new Error(`${what}: not run`);
  if (!o.ok) throw new Error(`${what} failed: ${o.error}`);
  return o.value;
}

describe.skipIf(!dir)('reader matrix over the corpus (needs ../shared/corpus or CORPUS_DIR)', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reader-matrix-'));
  });
  afterAll(() => {
    if (!process.env.KEEP_READER_MATRIX) fs.rmSync(tmp, { recursive: true, force: true });
    else console.log(`reader matrix outputs kept in ${tmp}`);
  });

  for (const entry of forms) {
    const name = path.basename(entry.file);
    describe(name, () => {
      let r: FormRun;
      beforeAll(async () => {
        r = await runForm(entry, tmp);
      }, 120_000);

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
          const seen = exact.get(key) ?? loose.get(looseName(key));
          if (!seen) wrong.push(`${key}: not listed by pdftk`);
          else if (shows(info, value, seen) === false) wrong.push(`${key}: wrote ${JSON.stringify(value)}, pdftk has ${JSON.stringify(seen)}`);
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
          // pdf.js gives a choice field's value as an array, text and buttons as a string
          const seen = asStrings(pdfjsValue(entries));
          if (shows(info, value, seen) === false) wrong.push(`${key}: wrote ${JSON.stringify(value)}, pdf.js has ${JSON.stringify(seen)}`);
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
        expect(need(flat, 'pdftk on the flattened output').map((f) => f.name), 'fields pdftk still lists').toEqual([]);
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
        it.skipIf(!ok)(`keeps at least the ink of every template page when flattened, drawn by ${tool}`, () => {
          const ink = r.ink[renderer]!;
          const before = need(ink.template, `${tool} on the template`);
          const after = need(ink.flat, `${tool} on the flattened output`);
          expect(after.length, 'pages drawn').toBe(before.length);
          const lost = before
            .map((b, i) => ({ page: i + 1, template: b, flattened: after[i] ?? 0 }))
            .filter((p) => p.flattened < Math.floor(p.template * INK_TOLERANCE));
          expect(lost).toEqual([]);
        });
      }
    });
  }
});
