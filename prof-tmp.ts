import fs from 'node:fs';
import { detectFields } from './src/pdf/detect/detect.js';
const f = process.argv[2];
const b = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/' + f));
await detectFields(b);
const t0 = performance.now();
await detectFields(b);
console.log('second run', performance.now() - t0);
