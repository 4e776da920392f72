import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
const dir='/work/shared/corpus/pdfs/';
for (const f of ['canada-cra-cannabis-duty-return.pdf','irs-f1040-2010-prefilled.pdf','uscis-i90-encrypted-xfa.pdf','luxembourg-certificat-salaire-160-2019.pdf']) {
  const b = new Uint8Array(fs.readFileSync(dir+f));
  const wall: number[] = [], cpu: number[] = [];
  for (let i=0;i<10;i++){ const c=process.cpuUsage(); const t=performance.now(); await analyse(b); wall.push(performance.now()-t); const d=process.cpuUsage(c); cpu.push((d.user+d.system)/1000); }
  const med = (xs: number[]) => [...xs].sort((a,b)=>a-b)[Math.floor(xs.length/2)].toFixed(0);
  console.log(f, 'cold wall', wall[0].toFixed(0), 'cold cpu', cpu[0].toFixed(0), '| warm median wall', med(wall.slice(1)), 'cpu', med(cpu.slice(1)), 'min wall', Math.min(...wall.slice(1)).toFixed(0));
}
