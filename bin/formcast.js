#!/usr/bin/env node
// Launcher: runs the compiled build (npm run build, which `npm ci` / `npm install` run through
// the prepare script). Development runs the sources with `npm run dev`.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code on disk (in NODE_COMPILE_CACHE, else the temp folder), so a
// command run again skips compiling what it ran before; Node 20 has no such cache (the call is absent).
module.enableCompileCache?.();

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('formcast: the build is missing (dist/main.js); run `npm run build` first');
  process.exit(1);
}
await import(entry.href);
