// pdf.js (pdfjs-dist, legacy build for Node) as an independent reader: the field values it sees and
// the text of each page. No worker thread: Node runs pdf.js's "fake worker" in-process.
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

const require = createRequire(import.meta.url);
const standardFontDataUrl =
  path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep;

/**
 * Opens a PDF in pdf.js as every test reader does: no eval, no system or web fonts, the standard fonts
 * from the package. pdf.js takes ownership of (detaches) the buffer it is given: this passes a copy.
 */
export function openWithPdfjs(bytes: Uint8Array) {
  return getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    standardFontDataUrl,
  }).promise;
}

/** One widget (or parent) entry of getFieldObjects(), reduced to what the tests look at. */
export interface PdfjsFieldObject {
  id: string;
  type: string;
  value?: unknown;
  exportValues?: unknown;
  kidIds?: string[];
  /** widget rectangle in PDF user space */
  rect?: number[];
  /** 0-based page index of a widget */
  page?: number;
  hidden?: boolean;
  /** choice fields: how many values are selected (`value` is only the first of them) */
  numItems?: number;
}

export interface PdfjsReading {
  /** getFieldObjects(): field name -> entries (a parent entry has kidIds and no value); null when the file has no fields */
  fields: Record<string, PdfjsFieldObject[]> | null;
  /** getTextContent() of every page, item strings joined without separators (index 0 is page 1) */
  pageTexts: string[];
  /**
   * Per page, the transform from PDF user space to the page as drawn at 72 dpi (crop box origin,
   * /Rotate applied), as pdf.js's viewport computes it: pixels at D dpi are these times D / 72.
   */
  pageTransforms: number[][];
  /** every widget annotation pdf.js finds on the pages (listed in /Fields or not) */
  widgets: PdfjsWidget[];
}

export interface PdfjsWidget {
  /** 0-based page index */
  page: number;
  rect: number[];
  /** the annotation's /F flags (4 Print, 2 Hidden, 32 NoView) */
  flags: number;
  fieldName: string;
  /** the widget's own /TU, "" when it has none (pdf.js does not look at the parent field) */
  alternativeText: string;
  /** how pdf.js understands the field: /FT and the kind of button or choice */
  fieldType?: string;
  checkBox?: boolean;
  radioButton?: boolean;
  combo?: boolean;
  multiLine?: boolean;
  comb?: boolean;
  maxLen?: number;
  /** a choice field's options (export values) */
  options?: string[];
}

/** Opens `bytes` with pdf.js and reads its fields and, when asked, the text of every page. */
export async function readWithPdfjs(bytes: Uint8Array, opts: { text?: boolean } = {}): Promise<PdfjsReading> {
  const doc = await openWithPdfjs(bytes);
  try {
    const fields = (await doc.getFieldObjects()) as Record<string, PdfjsFieldObject[]> | null;
    const pageTexts: string[] = [];
    const pageTransforms: number[][] = [];
    const widgets: PdfjsWidget[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      pageTransforms.push(page.getViewport({ scale: 1 }).transform);
      for (const a of (await page.getAnnotations({ intent: 'display' })) as {
        subtype?: string;
        rect?: number[];
        annotationFlags?: number;
        fieldName?: string;
        alternativeText?: string;
        fieldType?: string;
        checkBox?: boolean;
        radioButton?: boolean;
        combo?: boolean;
        multiLine?: boolean;
        comb?: boolean;
        maxLen?: number;
        options?: { exportValue: string }[];
      }[]) {
        if (a.subtype === 'Widget' && a.rect)
          widgets.push({
            page: i - 1,
            rect: a.rect,
            flags: a.annotationFlags ?? 0,
            fieldName: a.fieldName ?? '',
            alternativeText: a.alternativeText ?? '',
            fieldType: a.fieldType,
            checkBox: a.checkBox,
            radioButton: a.radioButton,
            combo: a.combo,
            multiLine: a.multiLine,
            comb: a.comb,
            maxLen: a.maxLen,
            options: a.options?.map((o) => o.exportValue),
          });
      }
      if (opts.text) {
        const content = await page.getTextContent();
        pageTexts.push(content.items.map((it) => ('str' in it ? it.str : '')).join(''));
      }
      page.cleanup();
    }
    return { fields, pageTexts, pageTransforms, widgets };
  } finally {
    await doc.destroy();
  }
}

/** The value pdf.js reports for a field: the first entry that carries one (parents carry none). */
export function pdfjsValue(entries: PdfjsFieldObject[]): unknown {
  return entries.find((e) => 'value' in e && !e.kidIds)?.value ?? entries.find((e) => 'value' in e)?.value;
}

/** A rectangle in PDF user space as pixels [x0, y0, x1, y1] of a page drawn at `dpi` (see pageTransforms). */
export function toPixels(rect: number[], transform: number[], dpi: number): [number, number, number, number] {
  const [a, b, c, d, e, f] = transform;
  const k = dpi / 72;
  const pt = (x: number, y: number) => [(a * x + c * y + e) * k, (b * x + d * y + f) * k];
  const [p, q] = [pt(rect[0], rect[1]), pt(rect[2], rect[3])];
  return [Math.min(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[0], q[0]), Math.max(p[1], q[1])];
}

/** pdf.js reports choice values as a string or an array of strings: always an array here. */
export function asStrings(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (v === undefined || v === null) return [];
  return [String(v)];
}

/** PDFDocEncoding where it differs from Latin-1 (bytes 0x18-0x1f and 0x80-0xa0), as pdf.js decodes it. */
const PDFDOC: Record<number, number> = {
  0x18: 0x2d8,
  0x19: 0x2c7,
  0x1a: 0x2c6,
  0x1b: 0x2d9,
  0x1c: 0x2dd,
  0x1d: 0x2db,
  0x1e: 0x2da,
  0x1f: 0x2dc,
  0x80: 0x2022,
  0x81: 0x2020,
  0x82: 0x2021,
  0x83: 0x2026,
  0x84: 0x2014,
  0x85: 0x2013,
  0x86: 0x192,
  0x87: 0x2044,
  0x88: 0x2039,
  0x89: 0x203a,
  0x8a: 0x2212,
  0x8b: 0x2030,
  0x8c: 0x201e,
  0x8d: 0x201c,
  0x8e: 0x201d,
  0x8f: 0x2018,
  0x90: 0x2019,
  0x91: 0x201a,
  0x92: 0x2122,
  0x93: 0xfb01,
  0x94: 0xfb02,
  0x95: 0x141,
  0x96: 0x152,
  0x97: 0x160,
  0x98: 0x178,
  0x99: 0x17d,
  0x9a: 0x131,
  0x9b: 0x142,
  0x9c: 0x153,
  0x9d: 0x161,
  0x9e: 0x17e,
  0xa0: 0x20ac,
};

/** A PDF name as pdftk-java prints it: each byte of the name (UTF-8 here) as one Latin-1 character. */
export function nameAsLatin1(name: string): string {
  return Buffer.from(name, 'utf8').toString('latin1');
}

const FROM_PDFDOC = new Map(Object.entries(PDFDOC).map(([byte, cp]) => [cp, Number(byte)]));

/**
 * A PDF name whose bytes are not UTF-8 (the engine reads them as PDFDocEncoding, "Patient’s" from
 * Patient#90s) as pdftk-java prints it: each byte as one Latin-1 character. Undefined when the text
 * has a character PDFDocEncoding lacks.
 */
export function pdfDocNameAsLatin1(name: string): string | undefined {
  let out = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    const byte = FROM_PDFDOC.get(cp) ?? (cp <= 0xff && !(cp in PDFDOC) ? cp : undefined);
    if (byte === undefined) return undefined;
    out += String.fromCharCode(byte);
  }
  return out;
}

/**
 * A PDF name as pdf.js reports it in a field value: its bytes decoded as a PDF text string
 * (PDFDocEncoding). pdf.js keeps appearance-state keys as raw bytes, so for a name with bytes where
 * the two differ it cannot match /V to a checkbox's on-state and reports "Off" (see checkboxValueVisible).
 */
export function nameAsPdfjs(name: string): string {
  return Array.from(Buffer.from(name, 'utf8'), (b) => String.fromCharCode(PDFDOC[b] ?? b)).join('');
}

/** Whether pdf.js can report this checkbox on-state at all (see nameAsPdfjs). */
export function checkboxValueVisible(onState: string): boolean {
  return nameAsPdfjs(onState) === nameAsLatin1(onState);
}
