// Builds the dashboard into dist/web: one ES module bundle (Preact + pdf.js), the stylesheet, the
// pdf.js worker and its font data. Served by the service at /app (src/http/dashboard.ts); no CDN.
// `node web/build.mjs --watch` rebuilds on change (npm run dev:web).
import { cp, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../dist/web');
const pdfjs = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const watch = process.argv.includes('--watch');

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await cp(path.join(here, 'index.html'), path.join(out, 'index.html'));
await cp(path.join(pdfjs, 'build/pdf.worker.min.mjs'), path.join(out, 'pdf.worker.min.mjs'));
await cp(path.join(pdfjs, 'standard_fonts'), path.join(out, 'standard_fonts'), { recursive: true });
await cp(path.join(pdfjs, 'cmaps'), path.join(out, 'cmaps'), { recursive: true });

const options = {
  entryPoints: { app: path.join(here, 'src/main.tsx'), styles: path.join(here, 'src/styles.css') },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: !watch,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': watch ? '"development"' : '"production"' },
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log(`watching web/ -> ${path.relative(process.cwd(), out)} (the server serves it at /app)`);
} else {
  await esbuild.build(options);
}
