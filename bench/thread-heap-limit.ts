// Can a render run in a worker thread with its own memory budget, and be stopped alone when it goes over?
// (issue 28, "server plus render workers ≤ 250 MB": docs/decisions.md, "Render workers stay processes").
// Each allocation shape runs in a child process holding one thread with `resourceLimits`; the thread
// reaching its heap limit should end alone (ERR_WORKER_OUT_OF_MEMORY) and the process live on. Prints one
// line per shape with what happened. Run: `npx tsc -p tsconfig.bench.json && node
// dist-bench/bench/thread-heap-limit.js`; any node binary as the first argument (another version).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';

/** what a PDF parser's or a script's runaway allocation looks like, in four shapes */
const SHAPES: Record<string, string> = {
  'many small arrays': 'const a = []; for (;;) a.push({ x: new Array(1000).fill(1) });',
  'one array grown by push': 'const a = []; for (let i = 0; i < 1e9; i++) a.push(i + 0.5);',
  'one large array filled': 'const a = new Array(1e8); for (let i = 0; i < a.length; i++) a[i] = i + 0.5;',
  'many strings': "const a = []; const s = 'x'.repeat(10000); for (let i = 0; ; i++) a.push(s.slice(0, 9999) + i);",
};

const parent = (code: string) => `
const { Worker } = require('node:worker_threads');
const w = new Worker(${JSON.stringify(code)}, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 128 } });
w.on('error', (e) => console.log('thread error ' + e.code));
w.on('exit', () => setTimeout(() => console.log('process alive'), 50));
`;

/** What happened to the thread and to its process, in words. */
function outcome(r: SpawnSyncReturns<string>): string {
  if (r.error) return `no answer: ${r.error.message}`; // the 60 s timeout, or node not found
  const lived = r.status === 0 && r.stdout.includes('process alive');
  if (lived && r.stdout.includes('ERR_WORKER_OUT_OF_MEMORY')) return 'the thread ended alone, the process lived';
  if (lived) return `the thread ended otherwise (${r.stdout.trim().split('\n')[0] || 'no error'}), the process lived`;
  const fatal = /FATAL ERROR: [^\n]*/.exec(r.stderr)?.[0];
  return `the whole process ended (status ${r.status}, signal ${r.signal}${fatal ? `: ${fatal}` : ''})`;
}

const node = process.argv[2] ?? process.execPath;
const version = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout?.trim() || node;
for (const [shape, code] of Object.entries(SHAPES)) {
  const r = spawnSync(node, ['-e', parent(code)], { encoding: 'utf8', timeout: 60_000 });
  console.log(`${version} | ${shape} | ${outcome(r)}`);
}
