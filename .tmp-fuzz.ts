import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
const original = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/pdflib-sample-form.pdf'));
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const times: [number, string][] = [];
for (let i = 0; i < 30; i++) {
  const copy = original.slice();
  for (let j = 0; j < 20; j++) copy[Math.floor(rand() * copy.length)] = Math.floor(rand() * 256);
  const t = performance.now();
  const r = await analyse(copy).then((a) => 'ok '+a.fields.length, (e: any) => e.code + ' ' + e.message.slice(0, 60));
  times.push([performance.now() - t, r]);
}
console.log(original.length, times.map(([t, r]) => t.toFixed(0) + ' ' + r).join('\n'));
