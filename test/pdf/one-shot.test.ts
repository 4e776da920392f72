// The offline CLI's one-shot render (one parse, the normalized template settled in memory) writes the
// same bytes as the service's render on its prepared base file (saved, parsed again): on every corpus
// form, flattened and not, Latin and non-Latin values, with a watermark, with and without scripts. And
// settleInMemory() on a document built to hold each case it handles, object by object against the parse.
import fs from 'node:fs';
import path from 'node:path';
import {
  PDFArray,
  PDFContentStream,
  PDFDict,
  PDFDocument,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  PDFRawStream,
  PDFRef,
  PDFString,
  StandardFonts,
} from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { openOneShot } from '../../src/pdf/fill/one-shot.js';
import { settleInMemory } from '../../src/pdf/fill/settle.js';
import { embedStandardFace } from '../../src/pdf/fonts/lazy-standard-font.js';
import { loadPdf } from '../../src/pdf/load.js';
import type { FillRequest, FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { refsOf } from '../../src/pdf/writer/object-refs.js';
import { ObjectWriter } from '../../src/pdf/writer/incremental-writer.js';
import { corpusDir, loadManifest } from '../helpers/corpus.js';

const dir = corpusDir();
const forms = dir ? loadManifest().files.filter((f) => f.validAcroForm) : [];

/** Every fillable field set: text (every third one non-Latin: font subsets), boxes checked, an option each. */
function sampleValues(analysis: TemplateAnalysis): Record<string, FillValue> {
  const values: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly) return;
    const key = f.pdfMeta.originalName;
    const option = f.options?.find((x) => x.trim() !== '');
    if (f.type === 'checkbox') values[key] = { kind: 'check', checked: true };
    else if (f.type === 'radio' || f.type === 'dropdown') {
      if (option) values[key] = { kind: 'choice', value: option };
    } else {
      const text = i % 3 === 0 ? 'Zoë Łódź Привет 東京' : `Value ${i} (ok)`;
      values[key] = { kind: 'text', text: f.maxLength ? Array.from(text).slice(0, f.maxLength).join('') : text };
    }
  });
  return values;
}

/** The kinds of request compared on each form. */
const REQUESTS: [string, (values: Record<string, FillValue>) => FillRequest][] = [
  ['flattened', (values) => ({ values, flatten: true })],
  ['interactive', (values) => ({ values, flatten: false })],
  ['watermark', (values) => ({ values, flatten: true, watermark: 'formcast' })],
  ['scripts off', (values) => ({ values, flatten: false, calculate: false })],
];

describe.skipIf(!dir)('one-shot render = the service render, byte for byte (needs the corpus)', () => {
  for (const entry of forms) {
    const name = path.basename(entry.file);
    describe(name, () => {
      let bytes: Uint8Array;
      let analysis: TemplateAnalysis;
      let values: Record<string, FillValue>;
      beforeAll(async () => {
        bytes = new Uint8Array(fs.readFileSync(path.join(dir!, entry.file)));
        analysis = await analyse(bytes, undefined, { captions: false });
        values = sampleValues(analysis);
      });
      for (const [label, make] of REQUESTS) {
        it(label, async () => {
          const request = make(values);
          // the service's way: prepared (base saved, parsed again), then rendered on it
          const service = await fillPdf(bytes, analysis, request);
          const once = await openOneShot(bytes, { captions: false, calculate: request.calculate });
          expect(once.analysis).toEqual(analysis);
          const out = await once.fill(request);
          // the in-memory path itself, not its fallback, is what is compared
          expect(once.inMemory).toBe(true);
          expect(Buffer.from(out.bytes).equals(Buffer.from(service.bytes)), 'same bytes').toBe(true);
          expect(out.warnings).toEqual(service.warnings);
        });
      }
    });
  }
});

/** Each indirect object as the compact layout writes it (streams deflated as there), by number. */
function written(doc: PDFDocument): Map<number, string> {
  const out = new Map<number, string>();
  for (const [ref, obj] of doc.context.enumerateIndirectObjects()) {
    const w = new ObjectWriter();
    if (obj instanceof PDFRawStream) w.stream(obj, true, 64, 6);
    else w.value(obj);
    w.flush();
    // the class (raw streams are deflated by the layout, built ones not), what it refers to, its bytes
    const refs = refsOf(obj).join(' ');
    out.set(ref.objectNumber, `${obj.constructor.name} -> ${refs}: ${Buffer.concat(w.parts).toString('latin1')}`);
  }
  return out;
}

/**
 * A loaded document with what normalizing leaves: a container held by two objects, a content stream
 * pdf-lib built (not deflated), a stream whose /Length is an object of its own, deleted objects on top.
 */
async function awkwardDocument(): Promise<PDFDocument> {
  const { doc, context: ctx } = await loadPdf(await onePage);
  const shared = ctx.obj([1, 2, 3]);
  const a = ctx.register(ctx.obj({ Kind: 'A', Shared: shared }));
  const b = ctx.register(ctx.obj({ Kind: 'B', Shared: shared }));
  // long enough to be deflated by the layout, not encoded by pdf-lib
  const moves = Array.from({ length: 20 }, (_, i) =>
    PDFOperator.of(PDFOperatorNames.MoveTo, [PDFNumber.of(i), PDFNumber.of(1)]),
  );
  const built = ctx.register(PDFContentStream.of(ctx.obj({}), moves, false));
  const lengthRef = ctx.register(PDFNumber.of(5));
  const raw = ctx.register(PDFRawStream.of(ctx.obj({ Length: lengthRef }), new TextEncoder().encode('hello')));
  const catalog = ctx.lookup(ctx.trailerInfo.Root, PDFDict);
  catalog.set(PDFName.of('Test'), ctx.obj([a, b, built, raw]));
  ctx.register(ctx.obj({ Gone: true }));
  const top = ctx.register(ctx.obj({ Gone: true }));
  ctx.delete(top);
  ctx.delete(PDFRef.of(top.objectNumber - 1));
  return doc;
}

/** One blank page (made once: its dates would differ between two). */
const onePage = PDFDocument.create().then((d) => {
  d.addPage([200, 200]);
  return d.save({ useObjectStreams: false });
});

describe('settleInMemory', () => {
  it('leaves the objects a parse of the saved document gives', async () => {
    const settled = await awkwardDocument();
    expect(await settleInMemory(settled)).toBe(true);
    const saved = await awkwardDocument();
    const bytes = await saved.save({ useObjectStreams: false, updateFieldAppearances: false });
    const { doc: parsed } = await loadPdf(bytes);
    expect(settled.context.largestObjectNumber).toBe(parsed.context.largestObjectNumber);
    expect(written(settled)).toEqual(written(parsed));

    // each holder has its own copy of the shared array, as after a parse
    const catalog = settled.context.lookup(settled.context.trailerInfo.Root, PDFDict);
    const [a, b] = [0, 1].map((i) =>
      settled.context.lookup(catalog.lookup(PDFName.of('Test'), PDFArray).get(i), PDFDict),
    );
    const arrays = [a, b].map((d) => d.lookup(PDFName.of('Shared'), PDFArray));
    expect(arrays[0]).not.toBe(arrays[1]);
    arrays[0].push(PDFNumber.of(4));
    expect(arrays[1].size()).toBe(3);
  });

  it('says no where a parse could read back something else than was written', async () => {
    const cases: [string, (doc: PDFDocument) => void][] = [
      ['a string with an unbalanced parenthesis', (d) => d.context.register(PDFString.of('a ) b'))],
      ['a string ending in an escape', (d) => d.context.register(d.context.obj({ T: PDFString.of('a\\') }))],
      ['a number written with an exponent', (d) => d.context.register(d.context.obj([1e-9]))],
      ['an object pdf-lib could not parse', (d) => d.context.register(PDFInvalidObject.of(new Uint8Array([1, 2])))],
    ];
    for (const [label, add] of cases) {
      const doc = await awkwardDocument();
      add(doc);
      expect(await settleInMemory(doc), label).toBe(false);
    }
  });
});

describe('embedStandardFace', () => {
  it('embeds what embedStandardFont does, and measures and encodes as it does', async () => {
    for (const face of Object.values(StandardFonts)) {
      const [lazyDoc, eagerDoc] = [await PDFDocument.create(), await PDFDocument.create()];
      const lazy = embedStandardFace(lazyDoc, face);
      const eager = eagerDoc.embedStandardFont(face);
      expect(lazy.name, face).toBe(eager.name);
      const text = face === StandardFonts.ZapfDingbats || face === StandardFonts.Symbol ? '\u2713' : 'Zoë 12€';
      if (face !== StandardFonts.ZapfDingbats && face !== StandardFonts.Symbol) {
        expect(lazy.widthOfTextAtSize(text, 11), face).toBe(eager.widthOfTextAtSize(text, 11));
        expect(lazy.encodeText(text).toString(), face).toBe(eager.encodeText(text).toString());
      }
      expect(lazy.heightAtSize(11), face).toBe(eager.heightAtSize(11));
      await lazyDoc.flush();
      await eagerDoc.flush();
      expect(lazyDoc.context.lookup(lazy.ref)?.toString(), face).toBe(eagerDoc.context.lookup(eager.ref)?.toString());
    }
  });
});
