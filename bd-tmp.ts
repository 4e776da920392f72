import { benchDetect } from './bench/detect.js';
const r = await benchDetect('/work/shared/corpus', { iterations: 5, warmup: 1, maxSeconds: 20 }, () => {});
console.log(r.table.split('\n').slice(-3).join('\n'));
for (const t of r.targets) console.log(t);
