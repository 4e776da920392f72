// A combine through the engines' temp files (issue 27 item 9): the combined file comes back as a file in
// a private folder, and that folder is gone after dispose(), after an item the engine refuses or storage
// cannot give (any rejection takes the same path), and, for a server killed -9, at the next engine start.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepDeadCombineFolders } from '../../src/adapters/engine/combine-staging.js';
import { inProcessEngine } from '../../src/adapters/engine/in-process-engine.js';
import { createPoolEngine, type PoolEngine } from '../../src/adapters/engine/pool-engine.js';
import type { CombineSource, RenderEngine } from '../../src/ports/render-engine.js';
import { PdfEngineError } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();
const LIMITS = { maxPages: 2000, maxFields: 5000 };
const source = (bytes: Uint8Array, flattened = false): CombineSource => ({
  open: async () => Readable.from([Buffer.from(bytes)]),
  flattened,
});
const folders = (root: string) => readdirSync(root).filter((n) => n.startsWith('formcast-combine-'));

describe.skipIf(!dir)('combining through temp files', () => {
  let root: string;
  let pool: PoolEngine;
  let form: Uint8Array;
  const savedTmp = process.env.TMPDIR;

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'combine-staging-'));
    process.env.TMPDIR = root; // os.tmpdir() of this process: where the engines put their folders
    form = readFileSync(path.join(dir!, 'pdfs', 'irs-fw4-2009.pdf'));
    pool = createPoolEngine({ size: 1, maxMemoryMb: 512, limits: LIMITS });
  });
  afterAll(async () => {
    await pool?.close();
    process.env.TMPDIR = savedTmp;
    rmSync(root, { recursive: true, force: true });
  });

  const engines: [string, () => RenderEngine][] = [
    ['pool', () => pool],
    ['in-process', () => inProcessEngine(LIMITS, { templateEntries: 4, templateMb: 64 })],
  ];
  for (const [name, engine] of engines) {
    it(`${name}: answers the combined file in a private folder, removed by dispose()`, async () => {
      const file = await engine().combine([source(form), source(form, true), source(form)]);
      expect(path.dirname(path.dirname(file.path))).toBe(root);
      expect(folders(root)).toHaveLength(1);
      expect(readdirSync(path.dirname(file.path))).toEqual(['combined.pdf']); // the items went already
      const pages = spawnSync('qpdf', ['--show-npages', file.path], { encoding: 'utf8' });
      if (pages.status !== null) expect(pages.stdout.trim()).toBe('6');
      expect(readFileSync(file.path).byteLength).toBe(file.size);
      await file.dispose();
      expect(folders(root)).toEqual([]);
    });

    it(`${name}: removes the folder when an item cannot be combined`, async () => {
      const bad = new Uint8Array(Buffer.from('not a PDF at all'));
      await expect(engine().combine([source(form), source(bad)])).rejects.toBeInstanceOf(PdfEngineError);
      expect(folders(root)).toEqual([]);
    });

    it(`${name}: removes the folder when an item cannot be read from storage`, async () => {
      const broken: CombineSource = { open: async () => Promise.reject(new Error('store down')), flattened: false };
      await expect(engine().combine([source(form), broken, source(form)])).rejects.toThrow('store down');
      expect(folders(root)).toEqual([]);
    });
  }

  it('sweeps the folders of processes that are gone, never those of live ones', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const dead = path.join(root, `formcast-combine-${gone.stdout}-abc123`);
    const live = path.join(root, `formcast-combine-${process.pid}-def456`);
    mkdirSync(dead);
    mkdirSync(live);
    await sweepDeadCombineFolders(root);
    expect(folders(root)).toEqual([path.basename(live)]);
    rmSync(live, { recursive: true });
  });
});
