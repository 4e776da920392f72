// A one-shot render reads each page content stream once: the analysis's size check records its q/Q
// balance, and the preparation, on the same objects, takes it from there. A page left unbalanced is
// wrapped as the service wraps it.
import { PDFDocument, PDFName, type PDFRawStream, type PDFRef } from '@cantoo/pdf-lib';
import { describe, expect, it, vi } from 'vitest';
import { analyseLoaded } from '../../src/pdf/analysis/analyse.js';
import { type BalanceCache, contentBalance } from '../../src/pdf/content-balance.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { openOneShot } from '../../src/pdf/fill/one-shot.js';
import { resolveLimits } from '../../src/pdf/limits.js';
import { loadPdf } from '../../src/pdf/load.js';
import { decodedBytes } from '../../src/pdf/stream-bytes.js';
import type { FillRequest } from '../../src/pdf/types.js';

vi.mock('../../src/pdf/content-balance.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/pdf/content-balance.js')>();
  return { ...real, contentBalance: vi.fn(real.contentBalance) };
});
vi.mock('../../src/pdf/stream-bytes.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/pdf/stream-bytes.js')>();
  return { ...real, decodedBytes: vi.fn(real.decodedBytes) };
});

const FIRST = 'q q 1 0 0 1 5 5 cm';
const SECOND = 'Q 0 0 m 10 10 l S';

/** A form whose page content saves the state twice and restores it once, in two streams. */
async function unbalancedForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  doc.getForm().createTextField('name').addToPage(page, { x: 20, y: 120, width: 200, height: 24 });
  const ctx = doc.context;
  const part = (text: string) => ctx.register(ctx.flateStream(text));
  page.node.set(PDFName.of('Contents'), ctx.obj([part(FIRST), part(SECOND)]));
  return doc.save({ useObjectStreams: false });
}

const readsOf = (text: string) =>
  vi
    .mocked(decodedBytes)
    .mock.results.filter((r) => r.type === 'return' && Buffer.from(r.value).toString('latin1') === text).length;

describe('the q/Q balances of a one-shot render', () => {
  it('are read by the analysis, as page-content.ts reads them', async () => {
    const bytes = await unbalancedForm();
    const loaded = await loadPdf(bytes);
    const balances: BalanceCache = new WeakMap();
    await analyseLoaded(loaded, bytes, resolveLimits(), { captions: false, balances });
    const [first, second] = (
      loaded.doc.getPages()[0].node.lookup(PDFName.of('Contents')) as never as {
        asArray(): PDFRef[];
      }
    ).asArray();
    expect(balances.get(loaded.context.lookup(first) as PDFRawStream)).toEqual({ net: 2, min: 0 });
    expect(balances.get(loaded.context.lookup(second) as PDFRawStream)).toEqual({ net: -1, min: -1 });
  });

  it('are not read again by the preparation, and the output is the service render', async () => {
    const bytes = await unbalancedForm();
    const request: FillRequest = { values: { name: { kind: 'text', text: 'Ada Lovelace' } }, flatten: true };
    const once = await openOneShot(bytes, { captions: false });
    vi.mocked(decodedBytes).mockClear();
    const out = await once.fill(request);
    expect(once.inMemory).toBe(true);
    expect(readsOf(FIRST)).toBe(0);
    expect(readsOf(SECOND)).toBe(0);

    // the service's preparation (another parse) reads them itself
    const loaded = await loadPdf(bytes);
    const analysis = await analyseLoaded(loaded, bytes, resolveLimits(), { captions: false });
    vi.mocked(decodedBytes).mockClear();
    const service = await fillPdf(bytes, analysis, request);
    expect(readsOf(FIRST)).toBe(1);
    expect(Buffer.from(out.bytes).equals(Buffer.from(service.bytes))).toBe(true);
  });

  it('are not read for a render that draws on no page (not flattened, no watermark)', async () => {
    const bytes = await unbalancedForm();
    const request: FillRequest = { values: { name: { kind: 'text', text: 'Ada Lovelace' } }, flatten: false };
    vi.mocked(decodedBytes).mockClear();
    vi.mocked(contentBalance).mockClear();
    const once = await openOneShot(bytes, { captions: false, drawsOnPages: false });
    const out = await once.fill(request);
    // the size check's read only; no balance counted (a count costs ~10 ms per MB of content)
    expect(readsOf(FIRST)).toBe(1);
    expect(contentBalance).not.toHaveBeenCalled();
    // by default the analysis counts them
    await (await openOneShot(bytes, { captions: false })).close();
    expect(contentBalance).toHaveBeenCalledTimes(2);
    const loaded = await loadPdf(bytes);
    const service = await fillPdf(
      bytes,
      await analyseLoaded(loaded, bytes, resolveLimits(), { captions: false }),
      request,
    );
    expect(Buffer.from(out.bytes).equals(Buffer.from(service.bytes))).toBe(true);
  });
});
