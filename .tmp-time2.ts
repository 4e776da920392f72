import fs from 'node:fs';
import { loadPdf } from './src/pdf/load.js';
import { analyse } from './src/pdf/analyse.js';
const dir='/work/shared/corpus/pdfs/';
for (const f of ['canada-cra-cannabis-duty-return.pdf','irs-f1040-2010-prefilled.pdf']) {
  const b = new Uint8Array(fs.readFileSync(dir+f));
  for (let i=0;i<5;i++){ let t=performance.now(); await loadPdf(b); const l=performance.now()-t; t=performance.now(); await analyse(b); console.log(f, 'load', l.toFixed(0), 'analyse', (performance.now()-t).toFixed(0)); }
}
