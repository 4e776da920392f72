import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
import { assignNames } from './src/pdf/names.js';
const b = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/canada-cra-cannabis-duty-return.pdf'));
const a = await analyse(b);
const input = a.fields.map(f => ({fullName: f.pdfMeta.originalName, partialNames: f.pdfMeta.originalName.split('.')}));
for (let i=0;i<5;i++){ const t=performance.now(); assignNames(input); console.log((performance.now()-t).toFixed(1)); }
console.log('rounds', (globalThis as any).__rounds);
