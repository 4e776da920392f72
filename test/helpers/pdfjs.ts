// pdf.js (pdfjs-dist, legacy build for Node) as an independent reader: the field values it sees and
// the text of each page. No worker thread: Node runs pdf.js's "fake worker" in-process.
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

const require = createRequire(import.meta.url);
const standardFontDataUrl = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep;

/** One widget (or parent) entry of getFieldObjects(), reduced to what the tests look at. */
export interface PdfjsFieldObject {
  id: string;
  type: string;
  value?: unknown;
  exportValues?: unknown;
  kidIds?: string[];
  page?: number;
}

export interface PdfjsReading {
  /** getFieldObjects(): field name -> entries (a parent entry has kidIds and no value); null when the file has no fields */
  fields: Record<string, PdfjsFieldObject[]> | null;
  /** getTextContent() of every page, item strings joined without separators (index 0 is page 1) */
  pageTexts: string[];
}

/** Opens `bytes` with pdf.js and reads its fields and, when asked, the text of every page. */
export async function readWithPdfjs(bytes: Uint8Array, opts: { text?: boolean } = {}): Promise<PdfjsReading> {
  // pdf.js takes ownership of (detaches) the buffer it is given: pass a copy.
  const doc = await getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    standardFontDataUrl,
  }).promise;
  try {
    const fields = (await doc.getFieldObjects()) as Record<string, PdfjsFieldObject[]> | null;
    const pageTexts: string[] = [];
    if (opts.text) {
      for (let i = 1; i <= doc.numPages; i++) {
        const page = await doc.getPage(i);
        const content = await page.getTextContent();
        pageTexts.push(content.items.map((it) => ('str' in it ? it.str : '')).join(''));
        page.cleanup();
      }
    }
    return { fields, pageTexts };
  } finally {
    await doc.destroy();
  }
}

/** The value pdf.js reports for a field: the first entry that carries one (parents carry none). */
export function pdfjsValue(entries: PdfjsFieldObject[]): unknown {
  return entries.find((e) => 'value' in e && !e.kidIds)?.value ?? entries.find((e) => 'value' in e)?.value;
}

/** pdf.js reports choice values as a string or an array of strings: always an array here. */
export function asStrings(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (v === undefined || v === null) return [];
  return [String(v)];
}
