import fs from 'node:fs';
import { WorkerPool } from '../src/workers/pool.ts';
const pool = new WorkerPool({ size: 2, timeoutMs: 5000, maxMemoryMb: 512, maxQueue: 8, testJobs: true, onWorkerLost: (e) => console.log('lost', e) });
let t = performance.now();
const bytes = fs.readFileSync('/work/shared/corpus/pdfs/luxembourg-certificat-salaire-160-2019.pdf');
const a: any = await pool.run('analyse', [bytes, {}]);
console.log('analyse first (incl start)', (performance.now() - t).toFixed(0), 'ms', a.fields.length);
t = performance.now();
await pool.run('analyse', [bytes, {}]);
console.log('analyse warm', (performance.now() - t).toFixed(0), 'ms');
try { await pool.run('analyse', [Buffer.from('nope')]); } catch (e: any) { console.log(e.name, e.code, e.message); }
try { await pool.run('test:throw', ['secret']); } catch (e: any) { console.log(e.name, e.code, e.message); }
const pid = await pool.run('test:pid', []);
console.log('pid', pid, fs.readFileSync(`/proc/${pid}/status`, 'latin1').match(/VmRSS.*/)?.[0]);
t = performance.now();
try { await pool.run('test:arraybuffers', [4000]); } catch (e: any) { console.log(e.code, e.message, (performance.now() - t).toFixed(0), 'ms'); }
try { await pool.run('test:spin', []); } catch (e: any) { console.log(e.code, e.message); }
console.log(pool.stats());
await pool.close();
console.log('closed', pool.stats());
