import { fork } from 'node:child_process';
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  const c = fork('src/workers/render-worker-entry.mjs', [], { serialization: 'advanced', execArgv: [] });
  await new Promise((r) => c.once('message', r));
  console.log('ready after', (performance.now() - t).toFixed(0), 'ms');
  c.kill();
}
