// Child-process entry of the render pool. Plain JavaScript on purpose: a forked process inherits no
// loader registered at runtime (bin/formcast.js, vitest), so it registers tsx itself and then loads
// the TypeScript worker. Works the same under `tsx`, `node bin/formcast.js` and vitest.
import { register } from 'tsx/esm/api';

register();
await import('./render-worker.ts');
