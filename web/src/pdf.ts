// pdf.js in the browser: open PDF bytes, find each field's widget rectangles.
import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist';
import type { SchemaField } from './api.js';

// Served from /app by the service itself (copied there by web/build.mjs): no CDN.
GlobalWorkerOptions.workerSrc = '/app/pdf.worker.min.mjs';

export type { PDFDocumentProxy };

export function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  return getDocument({
    data: bytes.slice(), // pdf.js takes (detaches) the buffer it is given
    isEvalSupported: false, // the page's CSP allows no eval
    enableXfa: false,
    standardFontDataUrl: '/app/standard_fonts/',
    cMapUrl: '/app/cmaps/',
    cMapPacked: true,
  }).promise;
}

/** One widget of a field: its page (1-based) and rectangle in PDF points. */
export interface Box {
  field: string;
  page: number;
  rect: number[];
}

interface Annotation {
  subtype?: string;
  fieldName?: string;
  rect?: number[];
}

/**
 * The boxes to draw: from the schema (`pdfMeta.widgets`, else `pdfMeta.rect` on `pdfMeta.page`) when
 * the server gives them, otherwise the widget annotations pdf.js finds under the field's PDF name.
 */
export async function fieldBoxes(doc: PDFDocumentProxy, fields: SchemaField[]): Promise<Box[]> {
  const boxes: Box[] = [];
  const missing: SchemaField[] = [];
  for (const f of fields) {
    const widgets = f.pdfMeta.widgets ?? (f.pdfMeta.rect ? [{ page: f.pdfMeta.page, rect: f.pdfMeta.rect }] : null);
    if (widgets) for (const w of widgets) boxes.push({ field: f.name, page: w.page, rect: w.rect });
    else missing.push(f);
  }
  if (missing.length === 0) return boxes;
  const byName = new Map<string, { page: number; rect: number[] }[]>();
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    for (const a of (await page.getAnnotations({ intent: 'display' })) as Annotation[]) {
      if (a.subtype !== 'Widget' || !a.fieldName || !a.rect) continue;
      const list = byName.get(a.fieldName) ?? [];
      list.push({ page: p, rect: a.rect });
      byName.set(a.fieldName, list);
    }
  }
  for (const f of missing) {
    for (const w of byName.get(f.pdfMeta.originalName) ?? []) boxes.push({ field: f.name, ...w });
  }
  return boxes;
}
