import fs from 'node:fs';
import { loadPdf } from './src/pdf/load.js';
import { collectPages } from './src/pdf/pages.js';
import { collectFields } from './src/pdf/field-tree.js';
import { describeField } from './src/pdf/field-info.js';
import { assignNames } from './src/pdf/names.js';
import { DEFAULT_LIMITS } from './src/pdf/limits.js';
import { getDict } from './src/pdf/pdf-objects.js';
const b = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/' + (process.argv[2] ?? 'canada-cra-cannabis-duty-return.pdf')));
const cpu = () => { const d = process.cpuUsage(); return (d.user + d.system) / 1000; };
for (let i=0;i<6;i++){
  let c = cpu();
  const L = await loadPdf(b); const c0 = cpu();
  const pages = collectPages(L.context, L.catalog, DEFAULT_LIMITS); const c1=cpu();
  const raws = collectFields(L.context, getDict(L.context, L.catalog, 'AcroForm'), pages, DEFAULT_LIMITS); const c2=cpu();
  const d = raws.map(r => describeField(L.context, r, 64)).filter(Boolean) as any[]; const c3=cpu();
  assignNames(d.map(f => ({fullName: f.pdfMeta.originalName, partialNames: f.pdfMeta.originalName.split('.')}))); const c4=cpu();
  console.log('cpu ms: load', (c0-c).toFixed(0), 'pages', (c1-c0).toFixed(1), 'fields', (c2-c1).toFixed(1), 'describe', (c3-c2).toFixed(1), 'names', (c4-c3).toFixed(1));
}
