#!/usr/bin/env node
// Launcher: runs the compiled build (npm run build, which `npm ci` / `npm install` run through
// the prepare script). Development runs the sources with `npm run dev`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('formcast: the build is missing (dist/main.js); run `npm run build` first');
  process.exit(1);
}
await import(entry.href);
