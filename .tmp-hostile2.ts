import { analyse } from './src/pdf/analyse.js';
const enc = new TextEncoder();
const cases: Record<string,string> = {
  unclosedObjs: '%PDF-1.7\n' + '1 0 obj\n<< /A (x\n'.repeat(20000),
  unclosedStrings: '%PDF-1.7\n' + '1 0 obj\n(x endobj\n'.repeat(20000),
  unclosedArrays: '%PDF-1.7\n1 0 obj\n' + '['.repeat(100000),
  unclosedDicts: '%PDF-1.7\n1 0 obj\n' + '<<'.repeat(50000),
  manyObjs: '%PDF-1.7\n' + Array.from({length: 50000}, (_, i) => `${i+1} 0 obj\n${i+2} 0 R\nendobj\n`).join(''),
};
for (const [k, v] of Object.entries(cases)) {
  const t = performance.now();
  const r = await analyse(enc.encode(v), { maxParseMs: 2000 }).then(() => 'ok', (e: any) => `${e.constructor.name} ${e.code} ${String(e.message).slice(0,100)}`);
  console.log(k, v.length, (performance.now()-t).toFixed(0)+'ms', r);
}
