// Decoding under a ceiling (issue 27): a bomb stops at the ceiling with StreamTooLarge, every stream of the
// corpus decodes to exactly what pdf-lib's own decoders give, and a chain of filters is followed in order.
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { StreamTooLarge, decodedBytes } from '../../src/pdf/stream-bytes.js';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { PdfEngineError } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { buildPdf, nestedFlateBomb } from '../helpers/hostile-pdfs.js';

const MB = 1024 * 1024;
const dir = corpusDir();

async function streamsOf(bytes: Uint8Array): Promise<PDFRawStream[]> {
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, password: '', throwOnInvalidObject: false });
  return doc.context
    .enumerateIndirectObjects()
    .map(([, obj]) => obj)
    .filter((obj): obj is PDFRawStream => obj instanceof PDFRawStream);
}

describe('decodedBytes', () => {
  it('stops a Flate-over-Flate bomb at the ceiling, and gives its head when asked to cut', async () => {
    const [bomb] = await streamsOf(await nestedFlateBomb('page'));
    expect(() => decodedBytes(bomb, 4 * MB)).toThrow(StreamTooLarge);
    const head = decodedBytes(bomb, 4 * MB, { cut: true });
    expect(head.length).toBe(4 * MB);
    expect(head.every((b) => b === 0)).toBe(true);
  });

  it('decodes a small stream of the same shape whole', async () => {
    const [zeros] = await streamsOf(await nestedFlateBomb('page', 1 / 1024));
    expect(decodedBytes(zeros, 4 * MB).length).toBe(MB);
  });

  it('inflates streams that deflate far more or far less than page content does, whole, without holding a large chunk for a small result', async () => {
    const doc = await PDFDocument.create();
    let seed = 1;
    const noise = Buffer.from(Array.from({ length: 300_000 }, () => (seed = (seed * 48271) % 0x7fffffff) & 0xff));
    const repetitive = Buffer.from('0 0 m 10 10 l S\n'.repeat(200_000)); // 3.2 MB, deflates ~1000x
    const inflated = (plain: Buffer) =>
      decodedBytes(PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode' }), deflateSync(plain)), 64 * MB);
    for (const plain of [noise, repetitive, Buffer.from('q Q')])
      expect(Buffer.from(inflated(plain)).equals(plain)).toBe(true);
    // noise barely deflates: its output is an eighth of the chunk asked for, and is copied out of it
    expect(inflated(noise).buffer.byteLength).toBe(noise.length);
  });

  it('follows a chain of filters in order (ASCIIHex over Flate)', async () => {
    const doc = await PDFDocument.create();
    const text = Buffer.from('BT /F1 12 Tf (hello) Tj ET '.repeat(100));
    const hex = Buffer.from(`${deflateSync(text).toString('hex')}>`);
    const stream = PDFRawStream.of(
      doc.context.obj({ Filter: [PDFName.of('ASCIIHexDecode'), PDFName.of('FlateDecode')] }),
      hex,
    );
    expect(Buffer.from(decodedBytes(stream, MB)).equals(text)).toBe(true);
    expect(() => decodedBytes(stream, 100)).toThrow(StreamTooLarge);
  });

  it('keeps what damaged Flate data gives (a bad checksum, a cut-off end), as readers do', async () => {
    const doc = await PDFDocument.create();
    const text = Buffer.from('0 0 m 100 100 l S '.repeat(2000));
    const good = deflateSync(text);
    const badSum = Buffer.from(good);
    badSum[badSum.length - 1] ^= 0xff;
    const flate = (data: Uint8Array) => PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode' }), data);
    expect(Buffer.from(decodedBytes(flate(badSum), MB)).equals(text)).toBe(true);
    const head = decodedBytes(flate(good.subarray(0, good.length - 20)), MB);
    expect(head.length).toBeGreaterThan(0);
    expect(Buffer.from(head).equals(text.subarray(0, head.length))).toBe(true);
  });

  it.skipIf(!dir)('decodes every stream of the corpus as pdf-lib does', async () => {
    const files = fs.readdirSync(path.join(dir!, 'pdfs')).filter((f) => f.endsWith('.pdf'));
    let compared = 0;
    for (const f of files) {
      let streams: PDFRawStream[];
      try {
        streams = await streamsOf(fs.readFileSync(path.join(dir!, 'pdfs', f)));
      } catch {
        continue; // the corpus's files that are not PDFs at all
      }
      for (const s of streams) {
        if (s.dict.lookup(PDFName.of('Subtype')) === PDFName.of('Image')) continue;
        let theirs: Uint8Array | undefined;
        try {
          theirs = decodePDFRawStream(s).decode();
        } catch {
          continue;
        }
        expect(Buffer.from(decodedBytes(s, 64 * MB)).equals(Buffer.from(theirs)), f).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

describe('analyse refuses decompression bombs', () => {
  it.each(['page', 'xobject', 'appearance'] as const)('in %s streams, with PDF_LIMIT', async (where) => {
    const err = await analyse(await nestedFlateBomb(where)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfEngineError);
    expect((err as PdfEngineError).code).toBe('PDF_LIMIT');
    expect((err as PdfEngineError).message).toMatch(/decompression bomb/);
  });

  it('accepts a page whose content cannot be decoded at all (pdf.js is not let read it)', async () => {
    const garbage = Buffer.from('this is not deflate data');
    const bytes = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Contents 5 0 R >>',
      '<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [50 700 300 720] /P 3 0 R >>',
      Buffer.concat([
        Buffer.from(`<< /Filter /FlateDecode /Length ${garbage.length} >>\nstream\n`),
        garbage,
        Buffer.from('\nendstream'),
      ]),
    ]);
    const { fields } = await analyse(bytes);
    expect(fields.map((f) => [f.name, f.label ?? null])).toEqual([['name', null]]);
  });

  it('keeps a total ceiling over all the streams of the pages', async () => {
    const bytes = await nestedFlateBomb('page', 1 / 1024);
    const err = await analyse(bytes, { maxDecodedBytes: 512 * 1024 }).catch((e: unknown) => e);
    expect((err as PdfEngineError).code).toBe('PDF_LIMIT');
    expect((await analyse(bytes)).fields.map((f) => f.name)).toEqual(['name']);
  });
});
