import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
const dir='/work/shared/corpus/pdfs/';
for (const f of ['canada-cra-cannabis-duty-return.pdf','irs-f1040-2010-prefilled.pdf','uscis-i90-encrypted-xfa.pdf','france-cerfa-10103-14-contrat-apprentissage.pdf','japan-jlpt-2025-application.pdf']) {
  const b = new Uint8Array(fs.readFileSync(dir+f));
  const times: number[] = [];
  for (let i=0;i<8;i++){ const t=performance.now(); await analyse(b); times.push(performance.now()-t); }
  const warm = times.slice(1).sort((a,b)=>a-b);
  console.log(f, 'first', times[0].toFixed(0)+'ms', 'median warm', warm[Math.floor(warm.length/2)].toFixed(0)+'ms', 'fields', (await analyse(b)).fields.length);
}
