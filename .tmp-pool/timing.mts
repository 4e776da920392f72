import fs from 'node:fs';
import { WorkerPool } from '../src/workers/pool.ts';
import { analyse } from '../src/pdf/analyse.ts';
const bytes = fs.readFileSync('/work/shared/corpus/pdfs/irs-f1040-2024.pdf');
let t = performance.now();
await analyse(bytes); console.log('in-process first', (performance.now() - t).toFixed(0));
for (let i = 0; i < 3; i++) { t = performance.now(); await analyse(bytes); console.log('in-process', (performance.now() - t).toFixed(0)); }
const pool = new WorkerPool({ size: 1, timeoutMs: 5000, maxMemoryMb: 512, maxQueue: 8 });
t = performance.now();
await pool.run('analyse', [bytes, {}]); console.log('pool first incl start', (performance.now() - t).toFixed(0));
for (let i = 0; i < 5; i++) { t = performance.now(); await pool.run('analyse', [bytes, {}]); console.log('pool', (performance.now() - t).toFixed(0)); }
await pool.close();
