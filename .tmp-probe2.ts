import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
const dir='/work/shared/corpus/pdfs/';
for (const f of process.argv.slice(2)) {
  const a = await analyse(new Uint8Array(fs.readFileSync(dir+f)));
  for (const x of a.fields) console.log(JSON.stringify([x.name, x.type, x.pdfMeta.originalName, x.options?.slice(0,4), x.detail.format, x.detail.optionStates, x.detail.onStates]));
}
