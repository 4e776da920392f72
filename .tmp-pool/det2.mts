import fs from 'node:fs';
import { analyse } from '../src/pdf/analyse.ts';
import { fillPdf } from '../src/pdf/fill.ts';
const bytes = fs.readFileSync('/work/shared/corpus/pdfs/luxembourg-certificat-salaire-160-2019.pdf');
const a = await analyse(bytes);
const values: any = {};
for (const f of a.fields) {
  if (f.type === 'text') values[f.pdfMeta.originalName] = { kind: 'text', text: 'Zoë Łukasz 42' };
  if (f.type === 'checkbox') values[f.pdfMeta.originalName] = { kind: 'check', checked: true };
}
const r = await fillPdf(bytes, a, { values, flatten: false });
fs.writeFileSync(process.argv[2], r.bytes);
