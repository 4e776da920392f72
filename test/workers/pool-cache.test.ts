// Render workers keep templates prepared under the caller's cache key, and the pool sends the
// template bytes only to a worker that does not hold that key (or says it no longer does); workers
// send a template's base file once, then only each render's incremental update.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { poolEngine, type PoolEngine } from '../../src/adapters/engine/pool-engine.js';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillRequest, TemplateAnalysis } from '../../src/pdf/types.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();
const LUX = 'luxembourg-certificat-salaire-160-2019.pdf';
const GARBAGE = new Uint8Array([1, 2, 3]);

function request(analysis: TemplateAnalysis): FillRequest {
  const values: FillRequest['values'] = {};
  for (const f of analysis.fields)
    if (f.type === 'text' && !f.pdfMeta.readOnly) values[f.pdfMeta.originalName] = { kind: 'text', text: 'Cached 42' };
  return { values, flatten: true };
}

function onePool(templateCache?: { maxEntries: number; maxBytes: number }, baseFilesMb?: number): PoolEngine {
  const pool = new WorkerPool({ size: 1, timeoutMs: 30_000, maxMemoryMb: 512, maxQueue: 4, templateCache });
  return poolEngine(pool, {}, baseFilesMb);
}

describe.skipIf(!dir)('pool template cache', () => {
  let engine: PoolEngine | undefined;
  afterEach(async () => {
    await engine?.close();
  });

  it('sends a worker the template once per cache key', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', LUX)));
    const analysis = await analyse(bytes);
    engine = onePool();
    const first = await engine.fill(bytes, analysis, request(analysis), 'lux@v1');
    // The worker holds "lux@v1": the job goes without bytes, so these unusable ones are never read.
    const second = await engine.fill(GARBAGE, analysis, request(analysis), 'lux@v1');
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    // Another key is another template version: its bytes are sent (and these cannot be rendered).
    await expect(engine.fill(GARBAGE, analysis, request(analysis), 'lux@v2')).rejects.toMatchObject({
      code: 'RENDER_FAILED',
    });
  });

  it('receives the shared prefix once per cache key, then only what each render writes', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', LUX)));
    const analysis = await analyse(bytes);
    engine = onePool();
    const first = await engine.fill(bytes, analysis, request(analysis), 'lux@v1');
    const second = await engine.fill(bytes, analysis, { ...request(analysis), flatten: false }, 'lux@v1');
    expect(first.chunks).toHaveLength(2);
    expect(second.chunks).toHaveLength(2);
    // The same buffer: the second answer carried no base; the pool's copy from the first one is reused.
    expect(second.chunks![0]).toBe(first.chunks![0]);
    // Only the render's own part crosses (an interactive Luxembourg output keeps most of its objects
    // outside the prefix, so it is no smaller than the prefix, but it is less than the whole template).
    expect(second.chunks![1].length).toBeLessThan(bytes.length);
    // Joined, the chunks are the file the in-process engine writes.
    const direct = await fillPdf(bytes, analysis, { ...request(analysis), flatten: false });
    expect(Buffer.from(second.bytes).equals(Buffer.from(direct.bytes))).toBe(true);
  });

  it('takes the whole base file with every render when the base budget holds nothing', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', LUX)));
    const analysis = await analyse(bytes);
    engine = onePool(undefined, 0);
    const first = await engine.fill(bytes, analysis, request(analysis), 'lux@v1');
    const second = await engine.fill(bytes, analysis, request(analysis), 'lux@v1');
    // Not the same buffer: nothing was kept here, so the worker sent the base again.
    expect(second.chunks![0]).not.toBe(first.chunks![0]);
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
  });

  it('resends the bytes when the worker no longer holds the template', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', LUX)));
    const analysis = await analyse(bytes);
    engine = onePool({ maxEntries: 32, maxBytes: 0 }); // the worker keeps nothing: every job without bytes misses
    const first = await engine.fill(bytes, analysis, request(analysis), 'lux@v1');
    const second = await engine.fill(bytes, analysis, request(analysis), 'lux@v1'); // sent bare, missed, resent
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    // The resend carries the caller's bytes: unusable ones now fail.
    await expect(engine.fill(GARBAGE, analysis, request(analysis), 'lux@v1')).rejects.toMatchObject({
      code: 'RENDER_FAILED',
    });
    expect(engine.stats()).toMatchObject({ workers: 1, lost: { timeout: 0, memory: 0, crash: 0 } });
  });
});
