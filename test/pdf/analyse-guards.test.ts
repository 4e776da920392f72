// Hostile and hand-built PDFs: cycles, depth, limits, orphans, encryption and damaged bytes.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  type PDFRef,
  type PDFContext,
  type PDFPage,
} from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { PdfEngineError } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

interface Kit {
  doc: PDFDocument;
  ctx: PDFContext;
  pages: PDFPage[];
  /** A registered dictionary; string values become names, use str() for text. */
  node(entries: Record<string, unknown>): PDFRef;
  /** A widget on page `pageIndex` (added to its /Annots). */
  widget(entries: Record<string, unknown>, pageIndex?: number): PDFRef;
  setFields(refs: PDFRef[]): void;
}

const str = (s: string) => PDFHexString.fromText(s);

async function build(make: (kit: Kit) => void, pageCount = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const pages = Array.from({ length: pageCount }, () => doc.addPage([300, 300]));
  const ctx = doc.context;
  const node = (entries: Record<string, unknown>) => ctx.register(ctx.obj(entries as never));
  const kit: Kit = {
    doc,
    ctx,
    pages,
    node,
    widget(entries, pageIndex = 0) {
      const ref = node({
        Type: 'Annot',
        Subtype: 'Widget',
        Rect: [10, 10, 100, 30],
        P: pages[pageIndex].ref,
        ...entries,
      });
      pages[pageIndex].node.addAnnot(ref);
      return ref;
    },
    setFields(refs) {
      doc.catalog.set(PDFName.of('AcroForm'), ctx.obj({ Fields: refs }));
    },
  };
  make(kit);
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}

async function rejection(p: Promise<unknown>): Promise<PdfEngineError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PdfEngineError);
  return err as PdfEngineError;
}

describe('analyse() guards', () => {
  it('survives a cycle in the field tree', async () => {
    const bytes = await build((k) => {
      const a = k.node({ T: str('a'), FT: 'Tx' });
      const b = k.node({ T: str('b'), Parent: a });
      const w = k.widget({ Parent: b });
      k.ctx.lookup(a, PDFDict).set(PDFName.of('Kids'), k.ctx.obj([b]));
      k.ctx.lookup(a, PDFDict).set(PDFName.of('Parent'), b); // a <-> b
      k.ctx.lookup(b, PDFDict).set(PDFName.of('Kids'), k.ctx.obj([a, w]));
      k.setFields([a]);
    });
    const res = await analyse(bytes);
    expect(res.fields.map((f) => [f.pdfMeta.originalName, f.type])).toEqual([['a.b', 'text']]);
  });

  it('survives a /Parent cycle when resolving names and inherited keys', async () => {
    const bytes = await build((k) => {
      const w = k.widget({ T: str('w') });
      const x = k.node({ T: str('x'), FT: 'Tx', Ff: 2, Parent: w });
      k.ctx.lookup(w, PDFDict).set(PDFName.of('Parent'), x);
      k.setFields([w]);
    });
    const res = await analyse(bytes);
    expect(res.fields).toHaveLength(1);
    expect(res.fields[0]).toMatchObject({ type: 'text', required: true, pdfMeta: { originalName: 'x.w' } });
  });

  it('answers INVALID_PDF for a cycle in the page tree', async () => {
    const bytes = await build((k) => {
      const pagesRef = k.doc.catalog.get(PDFName.of('Pages')) as PDFRef;
      const kids = k.ctx.lookup(pagesRef, PDFDict).lookup(PDFName.of('Kids')) as unknown as { push(o: unknown): void };
      kids.push(pagesRef);
      k.setFields([k.widget({ T: str('t'), FT: 'Tx' })]);
    });
    const err = await analyse(bytes).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfEngineError);
    expect((err as PdfEngineError).code).toBe('INVALID_PDF');
    expect((err as PdfEngineError).message).toMatch(/cyclic/);
  });

  it('rejects a field tree deeper than maxDepth with PDF_LIMIT', async () => {
    const bytes = await build((k) => {
      let child = k.widget({ T: str('leaf'), FT: 'Tx' });
      for (let i = 0; i < 100; i++) {
        const parent = k.node({ T: str(`n${i}`), Kids: [child] });
        k.ctx.lookup(child, PDFDict).set(PDFName.of('Parent'), parent);
        child = parent;
      }
      k.setFields([child]);
    });
    expect((await rejection(analyse(bytes))).code).toBe('PDF_LIMIT');
    expect((await analyse(bytes, { maxDepth: 200 })).fields).toHaveLength(1);
  });

  it('enforces maxFields, maxPages, maxNodes and maxBytes', async () => {
    const bytes = await build((k) => {
      k.setFields(Array.from({ length: 20 }, (_, i) => k.widget({ T: str(`f${i}`), FT: 'Tx' }, i % 4)));
    }, 4);
    expect((await analyse(bytes)).fields).toHaveLength(20);
    expect((await rejection(analyse(bytes, { maxFields: 5 }))).code).toBe('PDF_LIMIT');
    expect((await rejection(analyse(bytes, { maxPages: 3 }))).code).toBe('PDF_LIMIT');
    expect((await rejection(analyse(bytes, { maxNodes: 10 }))).code).toBe('PDF_LIMIT');
    expect((await rejection(analyse(bytes, { maxBytes: 100 }))).code).toBe('PDF_LIMIT');
    // Nonsense limits fall back to the defaults instead of disabling the guard.
    expect((await analyse(bytes, { maxFields: -1, maxDepth: Number.NaN })).fields).toHaveLength(20);
  });

  it('recovers widgets that only a page /Annots still references', async () => {
    const bytes = await build((k) => {
      const kept = k.widget({ T: str('kept'), FT: 'Tx' });
      const parent = k.node({ T: str('lost'), FT: 'Btn' });
      const kid = k.widget({ Parent: parent, AP: { N: { Yes: k.node({}), Off: k.node({}) } } }, 1);
      k.ctx.lookup(parent, PDFDict).set(PDFName.of('Kids'), k.ctx.obj([kid]));
      k.setFields([kept]);
    }, 2);
    const res = await analyse(bytes);
    const lost = res.fields.find((f) => f.pdfMeta.originalName === 'lost');
    expect(lost).toMatchObject({
      type: 'checkbox',
      pdfMeta: { page: 2 },
      detail: { inAcroFormFields: false, onStates: ['Yes'] },
    });
    expect(res.fields.find((f) => f.name === 'kept')?.detail.inAcroFormFields).toBe(true);
  });

  it('reads radio /Opt values, list-box pairs and a format script stored as a stream', async () => {
    const bytes = await build((k) => {
      const radio = k.node({ T: str('pick'), FT: 'Btn', Ff: 1 << 15, Opt: [str('Café'), str('Tea'), str('Tea')] });
      const kids = ['0', '1', '2'].map((s) =>
        k.widget({ Parent: radio, AP: { N: { [s]: k.node({}), Off: k.node({}) } } }),
      );
      k.ctx.lookup(radio, PDFDict).set(PDFName.of('Kids'), k.ctx.obj(kids));
      const list = k.widget({ T: str('list'), FT: 'Ch', Opt: [[str('a'), str('Alpha')], str('b')], Ff: 1 << 21 });
      const js = k.ctx.flateStream('AFDate_FormatEx("yyyy-mm-dd");');
      const date = k.widget({ T: str('when'), FT: 'Tx', AA: { F: { S: 'JavaScript', JS: k.ctx.register(js) } } });
      k.setFields([radio, list, date]);
    });
    const res = await analyse(bytes);
    const [pick, list, when] = res.fields;
    // Two buttons sharing the value "Tea" (states 1 and 2) both stay selectable.
    expect(pick).toMatchObject({
      type: 'radio',
      options: ['Café', 'Tea', 'Tea (2)'],
      detail: { optionStates: ['0', '1', '2'] },
    });
    expect(list).toMatchObject({
      type: 'dropdown',
      options: ['a', 'b'],
      detail: { listBox: true, multiSelect: true, optionLabels: ['Alpha', 'b'] },
    });
    expect(when).toMatchObject({ type: 'date', detail: { format: { kind: 'date', pattern: 'yyyy-mm-dd' } } });
  });

  it('falls back to the kid widget for /FT, /Ff and /MaxLen', async () => {
    const bytes = await build((k) => {
      const parent = k.node({ T: str('p') });
      const kid = k.widget({ Parent: parent, FT: 'Tx', Ff: 2, MaxLen: 5 });
      k.ctx.lookup(parent, PDFDict).set(PDFName.of('Kids'), k.ctx.obj([kid]));
      k.setFields([parent]);
    });
    expect((await analyse(bytes)).fields[0]).toMatchObject({ name: 'p', type: 'text', required: true, maxLength: 5 });
  });

  it('rejects forms without a fillable field, and non-forms', async () => {
    const pushOnly = await build((k) => k.setFields([k.widget({ T: str('go'), FT: 'Btn', Ff: 1 << 16 })]));
    expect((await rejection(analyse(pushOnly))).code).toBe('INVALID_PDF');
    const noForm = await build(() => {});
    expect((await rejection(analyse(noForm))).message).toMatch(/AcroForm/);
    const emptyFields = await build((k) => k.setFields([]));
    expect((await rejection(analyse(emptyFields))).code).toBe('INVALID_PDF');
  });

  it('rejects junk bytes with INVALID_PDF', async () => {
    const enc = new TextEncoder();
    for (const junk of [
      new Uint8Array(0),
      enc.encode('hello world'),
      enc.encode('%PDF-1.7\n'),
      enc.encode('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'),
    ]) {
      expect((await rejection(analyse(junk))).code).toBe('INVALID_PDF');
    }
  });

  it('bounds parse time on junk that makes the parser rescan the file', async () => {
    // Every unclosed object sends pdf-lib's recovery to the end of the file: quadratic time.
    const junk = new TextEncoder().encode(`%PDF-1.7\n${'1 0 obj\n<< /A (x\n'.repeat(20_000)}`);
    const started = performance.now();
    const err = await rejection(analyse(junk, { maxParseMs: 300 }));
    expect(err.code).toBe('PDF_LIMIT');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  // pdf-lib's own encrypt() writes empty strings (seen with 2.11.1), so qpdf makes the fixtures.
  const qpdf = spawnSync('qpdf', ['--version']).status === 0;
  it.skipIf(!qpdf)(
    'decrypts AES-256, AES-128 and RC4 files with an empty user password; refuses a real one',
    async () => {
      const plain = await build((k) =>
        k.setFields([k.widget({ T: str('名前 Zoë'), FT: 'Ch', Ff: 1 << 17, Opt: [str('Ünïcode'), str('東京')] })]),
      );
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'analyse-enc-'));
      try {
        fs.writeFileSync(path.join(tmp, 'plain.pdf'), plain);
        const encrypt = (user: string, ...args: string[]) => {
          const out = path.join(tmp, 'enc.pdf');
          execFileSync('qpdf', [
            '--allow-weak-crypto',
            '--object-streams=generate',
            '--encrypt',
            user,
            'owner',
            ...args,
            '--',
            path.join(tmp, 'plain.pdf'),
            out,
          ]);
          return new Uint8Array(fs.readFileSync(out));
        };
        for (const scheme of [['256'], ['128', '--use-aes=y'], ['128', '--use-aes=n'], ['40']]) {
          const res = await analyse(encrypt('', ...scheme));
          expect(res.encrypted, scheme.join(' ')).toBe(true);
          expect(res.fields[0], scheme.join(' ')).toMatchObject({ name: '名前 Zoë', options: ['Ünïcode', '東京'] });
        }
        expect((await rejection(analyse(encrypt('secret', '256')))).message).toMatch(/password/);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    },
  );

  const sample = corpusDir() && path.join(corpusDir()!, 'pdfs', 'pdflib-sample-form.pdf');
  it.skipIf(!sample || !fs.existsSync(sample))('never lets a raw exception escape on damaged bytes', async () => {
    const original = new Uint8Array(fs.readFileSync(sample!));
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const variants: Uint8Array[] = [];
    for (let i = 1; i < 10; i++) variants.push(original.slice(0, Math.floor((original.length * i) / 10)));
    for (let i = 0; i < 30; i++) {
      const copy = original.slice();
      for (let j = 0; j < 20; j++) copy[Math.floor(rand() * copy.length)] = Math.floor(rand() * 256);
      variants.push(copy);
    }
    variants.push(new Uint8Array(zlib.deflateSync(original)));
    for (const v of variants) {
      const outcome = await analyse(v).then(
        () => 'ok',
        (e: unknown) => e,
      );
      if (outcome !== 'ok') expect(outcome).toBeInstanceOf(PdfEngineError);
    }
  });
});
