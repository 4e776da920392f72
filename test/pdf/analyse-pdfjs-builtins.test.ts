// pdf.js's legacy build replaces built-ins Node has (Array.prototype.push, JSON.parse...) with core-js
// polyfills for the whole process; the analyser's loader puts them back, so a render worker that has
// analysed a form renders as fast as before. Each case runs in a fresh process: the built-ins are
// process-wide, and another test file may have loaded pdf.js already.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

/** Runs `body` as an ES module in a fresh node (with tsx, for our sources) and returns what it prints. */
async function fresh(body: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], {
    cwd: repoRoot,
  });
  return JSON.parse(stdout.trim().split('\n').pop() as string);
}

const SNAPSHOT = `const before = { push: Array.prototype.push, parse: JSON.parse, toString: Function.prototype.toString };
const same = () => ({ push: Array.prototype.push === before.push, parse: JSON.parse === before.parse, toString: Function.prototype.toString === before.toString });`;

describe('pdf.js and the built-ins', () => {
  it('importing pdf.js as is replaces Array.prototype.push and JSON.parse (why the loader exists)', async () => {
    const out = await fresh(`${SNAPSHOT}
await import('pdfjs-dist/legacy/build/pdf.mjs');
await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
console.log(JSON.stringify(same()));`);
    expect(out).toMatchObject({ push: false, parse: false });
  });

  it('after an analysis that read page text, the built-ins are the ones Node started with', async () => {
    const analyse = path.join(repoRoot, 'src/pdf/analysis/analyse.ts');
    const out = await fresh(`${SNAPSHOT}
const { PDFDocument, StandardFonts } = await import('@cantoo/pdf-lib');
const { analyse } = await import(${JSON.stringify(analyse)});
const doc = await PDFDocument.create();
const page = doc.addPage([300, 200]);
const font = await doc.embedFont(StandardFonts.Helvetica);
page.drawText('Last name:', { x: 20, y: 100, size: 10, font });
doc.getForm().createTextField('t1').addToPage(page, { x: 90, y: 96, width: 120, height: 14, font });
const a = await analyse(await doc.save(), { maxLabelMs: 600000 });
console.log(JSON.stringify({ ...same(), label: a.fields[0].label, withResolvers: typeof Promise.withResolvers }));`);
    // the caption proves pdf.js ran; what it added (Promise.withResolvers on Node 20) stays for it
    expect(out).toEqual({ push: true, parse: true, toString: true, label: 'Last name', withResolvers: 'function' });
  });

  it('reads page text without loading the native canvas package, and leaves no stand-in behind', async () => {
    const analyse = path.join(repoRoot, 'src/pdf/analysis/analyse.ts');
    const stdout = (
      await run(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `const { createRequire } = await import('node:module');
const getBuiltinModule = process.getBuiltinModule;
const { PDFDocument, StandardFonts } = await import('@cantoo/pdf-lib');
const { analyse } = await import(${JSON.stringify(analyse)});
const doc = await PDFDocument.create();
const page = doc.addPage([300, 200]);
const font = await doc.embedFont(StandardFonts.Helvetica);
page.drawText('Last name:', { x: 20, y: 100, size: 10, font });
doc.getForm().createTextField('t1').addToPage(page, { x: 90, y: 96, width: 120, height: 14, font });
const a = await analyse(await doc.save(), { maxLabelMs: 600000 });
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('@napi-rs'));
console.log(JSON.stringify({ label: a.fields[0].label, loaded, restored: process.getBuiltinModule === getBuiltinModule,
  globals: ['DOMMatrix', 'ImageData', 'Path2D'].filter((k) => k in globalThis) }));`,
        ],
        { cwd: repoRoot },
      )
    ).stdout;
    // the whole output: pdf.js printed no warning about the missing polyfills
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toEqual({ label: 'Last name', loaded: [], restored: true, globals: [] });
  });
});
