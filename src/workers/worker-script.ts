// Which script a render worker process runs.
//
// The service runs from TypeScript sources through tsx. A worker started through tsx carries tsx's
// loader (a module-hooks thread with its own V8 heap) and the transpiled sources for its whole life:
// measured ~160 MB RSS for an idle worker. So the pool bundles the worker's module graph once per
// process with esbuild (the compiler tsx itself uses) into one plain ES module and forks plain node
// on it: ~80 MB idle. The bundle goes to node_modules/.cache/formcast/ (npm packages resolve from
// there, as they do from src/), named by a hash of its contents and written atomically, so concurrent
// servers and test files share it safely. If anything fails (no esbuild, read-only node_modules), the
// worker starts through tsx as before: slower to start and bigger, but the same code.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Registers tsx, then imports render-worker.ts (the fallback, and what plain-JS builds never need). */
const TSX_ENTRY = path.join(here, 'render-worker-entry.mjs');

let script: Promise<string> | undefined;

/** The path of the script to fork: the plain bundle when it can be built, else the tsx entry. */
export function workerScript(): Promise<string> {
  script ??= bundle().catch((err: unknown) => {
    console.error('[render-pool] could not bundle the render worker; starting it through tsx:', err);
    return TSX_ENTRY;
  });
  return script;
}

async function bundle(): Promise<string> {
  const source = path.join(here, 'render-worker.ts');
  const compiled = path.join(here, 'render-worker.js');
  if (!existsSync(source)) return existsSync(compiled) ? compiled : TSX_ENTRY; // compiled JS needs no bundle
  const esbuild = await import('esbuild');
  const out = await esbuild
    .build({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external', // node_modules stay shared, loaded by node as usual
      write: false,
      logLevel: 'silent',
    })
    .finally(() => esbuild.stop()); // its service process would otherwise stay, ~18 MB, as our child
  const code = out.outputFiles[0].contents;
  const dir = path.resolve(here, '../../node_modules/.cache/formcast');
  const file = path.join(dir, `render-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  return file;
}
