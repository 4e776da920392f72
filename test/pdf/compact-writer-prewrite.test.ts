// Objects written ahead while a render's scripts run (compact-writer.ts prewrite, ChangeTracker.mark): the
// output is byte for byte the one written at the end, whatever changed after the mark (a base object, a
// container the render put into one, a container of an object it added, an added object replaced).
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  type PDFRef,
} from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { ChangeTracker } from '../../src/pdf/writer/change-tracker.js';
import { buildLayout, type CompactLayout } from '../../src/pdf/writer/compact-layout.js';
import { prewrite, writeCompact } from '../../src/pdf/writer/compact-writer.js';

const N = (n: string) => PDFName.of(n);

interface Prepared {
  doc: PDFDocument;
  layout: CompactLayout;
  tracker: ChangeTracker;
  a: PDFDict;
  b: PDFDict;
}

/** A base file with two field-like dictionaries under /AcroForm (outside the layout's prefix). */
async function prepared(): Promise<Prepared> {
  const made = await PDFDocument.create();
  made.addPage([200, 200]);
  const field = (name: string) =>
    made.context.register(made.context.obj({ T: PDFHexString.fromText(name), V: PDFHexString.fromText('1') }));
  made.catalog.set(N('AcroForm'), made.context.obj({ Fields: [field('a'), field('b')] }));
  const doc = await PDFDocument.load(await made.save({ useObjectStreams: false }));
  const ctx = doc.context;
  const pages = doc.getPages().map((p) => p.node);
  const { layout, objectStreams } = buildLayout({
    ctx,
    catalog: doc.catalog,
    pageTree: [...pages, doc.catalog.lookup(N('Pages'), PDFDict)],
    formDicts: new Set(),
    version: '1.7',
    firstFree: ctx.largestObjectNumber + 1,
  });
  ctx.largestObjectNumber += objectStreams;
  const fields = doc.catalog.lookup(N('AcroForm'), PDFDict).lookup(N('Fields'), PDFArray);
  return {
    doc,
    layout,
    tracker: new ChangeTracker(ctx),
    a: fields.lookup(0, PDFDict),
    b: fields.lookup(1, PDFDict),
  };
}

/**
 * One render: changes before the mark (what the caller's values do), changes after it (what the scripts'
 * results do), written with the objects written ahead (pruned or not) or without them.
 */
function render(p: Prepared, ahead: 'none' | 'pruned' | 'unpruned'): string {
  const { doc, layout, tracker, a, b } = p;
  const ctx = doc.context;
  tracker.begin();
  try {
    // before the mark
    a.set(N('V'), PDFHexString.fromText('before'));
    const stream = (text: string) => ctx.register(PDFRawStream.of(ctx.obj({}), Buffer.from(text, 'latin1')));
    const first = stream('0 g');
    a.set(N('AP'), ctx.obj({ N: first })); // a container the render puts into a base object
    const list = ctx.obj([1, 2]);
    const added: PDFRef = ctx.register(ctx.obj({ List: list })); // an added object with a container
    b.set(N('X'), added);
    b.set(N('Y'), PDFNumber.of(7));
    let ready: ReturnType<typeof prewrite> | undefined;
    if (ahead !== 'none') {
      tracker.mark();
      ready = prewrite(ctx, tracker.changed(), tracker.baseMax, tracker);
    }
    // after the mark
    a.lookup(N('AP'), PDFDict).set(N('D'), PDFNumber.of(5));
    list.push(PDFNumber.of(3));
    ctx.assign(first, PDFRawStream.of(ctx.obj({}), Buffer.from('1 g', 'latin1')));
    b.set(N('Z'), ctx.register(ctx.obj({ Late: true })));
    if (ready && ahead === 'pruned') for (const n of tracker.changedSinceMark()) ready.delete(n);
    const { tail } = writeCompact(ctx, layout, tracker.changed(), tracker.baseMax, false, ready);
    return Buffer.from(tail).toString('latin1');
  } finally {
    tracker.restore();
  }
}

describe('objects written ahead of the scripts results', () => {
  it('give the same bytes as writing everything at the end', async () => {
    const p = await prepared();
    const atEnd = render(p, 'none');
    expect(atEnd).toContain('/D 5');
    expect(atEnd).toContain('[ 1 2 3 ]');
    expect(atEnd).toContain('1 g');
    expect(render(p, 'pruned')).toBe(atEnd);
  });

  it('would carry stale objects if what changed after the mark were used (the test can fail)', async () => {
    const p = await prepared();
    const atEnd = render(p, 'none');
    const stale = render(p, 'unpruned');
    expect(stale).not.toBe(atEnd);
    expect(stale).not.toContain('/D 5');
    expect(stale).not.toContain('[ 1 2 3 ]');
  });

  it('lists the objects changed after the mark, and none once restored', async () => {
    const p = await prepared();
    const { tracker, a, doc } = p;
    tracker.begin();
    a.set(N('V'), PDFHexString.fromText('x'));
    tracker.mark();
    expect(tracker.changedSinceMark().size).toBe(0);
    a.set(N('V'), PDFHexString.fromText('y'));
    expect([...tracker.changedSinceMark()]).toEqual([doc.context.getObjectRef(a)?.objectNumber]);
    tracker.restore();
    expect(tracker.changedSinceMark().size).toBe(0);
  });
});
