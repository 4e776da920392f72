import fs from 'node:fs';
import { loadPdf } from './src/pdf/load.js';
import { collectPages } from './src/pdf/pages.js';
import { collectFields } from './src/pdf/field-tree.js';
import { describeField } from './src/pdf/field-info.js';
import { assignNames } from './src/pdf/names.js';
import { DEFAULT_LIMITS } from './src/pdf/limits.js';
import { getDict } from './src/pdf/pdf-objects.js';
const b = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/canada-cra-cannabis-duty-return.pdf'));
for (let i=0;i<4;i++){
  const L = await loadPdf(b);
  let t=performance.now();
  const pages = collectPages(L.context, L.catalog, DEFAULT_LIMITS); const t1=performance.now();
  const raws = collectFields(L.context, getDict(L.context, L.catalog, 'AcroForm'), pages, DEFAULT_LIMITS); const t2=performance.now();
  const d = raws.map(r => describeField(L.context, r, 64)).filter(Boolean) as any[]; const t3=performance.now();
  assignNames(d.map(f => ({fullName: f.pdfMeta.originalName, partialNames: f.pdfMeta.originalName.split('.')}))); const t4=performance.now();
  console.log('pages', (t1-t).toFixed(1), 'fields', (t2-t1).toFixed(1), 'describe', (t3-t2).toFixed(1), 'names', (t4-t3).toFixed(1));
}
