// A signed combine (issue 26 "the combined PDF signed once as a whole", issue 27 item 9 "the server's
// memory bounded whatever the batch"): the combined file is built with its signature field, byte range
// and digest as it is written (pdf/merge/combine.ts), and only the CMS is written into it afterwards,
// in place, by whoever holds the key. Checked by pdfsig and openssl cms -verify, which share no code
// with ours; one byte changed makes both refuse it.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { combineInto } from '../../src/pdf/merge/combine.js';
import { combineFiles } from '../../src/workers/combine-files.js';
import { detachedSigning, signBytes, signerFromPem } from '../../src/modules/signing/sign-output.js';
import { embedSignatureInFile } from '../../src/modules/signing/signed-file.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, qpdfCheck } from '../helpers/pdf-tools.js';
import { allSignatureParts, makeIdentity, opensslVerify, pdfsig } from '../helpers/signing.js';

const corpus = corpusDir();
const tools = ['pdfsig', 'qpdf', 'openssl', 'pdftotext'].every(hasTool);

describe.skipIf(!corpus || !tools)('a signed combine, prepared as it is written', () => {
  let dir: string;
  let id: ReturnType<typeof makeIdentity>;
  const files: { path: string; flattened: boolean }[] = [];

  const signer = () => signerFromPem(fs.readFileSync(id.crt, 'utf8'), id.keyPem);
  const now = new Date('2026-11-26T10:00:00Z');

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'formcast-signcombine-'));
    id = makeIdentity(dir, 'combine');
    const read = (name: string) => fs.readFileSync(path.join(corpus!, 'pdfs', name));
    // a flattened two-page form first (the widget goes on a page without /Annots), then a form kept
    // interactive (fields renamed per copy), then a render signed on its own (its signature left out)
    const w4 = read('irs-fw4-2009.pdf');
    const w4a = await analyse(w4);
    const name = w4a.fields.find((f) => f.type === 'text' && !f.maxLength)!.pdfMeta.originalName;
    const flat = await fillPdf(w4, w4a, { values: { [name]: { kind: 'text', text: 'FIRST ITEM' } }, flatten: true });
    const basic = read('pdfbox-acroforms-basic-fields.pdf');
    const live = await fillPdf(basic, await analyse(basic), { values: {}, flatten: false });
    const signed = await signBytes(live.bytes, signer(), { subject: 'CN=item signer', now });
    for (const [i, [bytes, flattened]] of (
      [
        [flat.bytes, true],
        [live.bytes, false],
        [signed, false],
      ] as const
    ).entries()) {
      const file = path.join(dir, `item-${i}.pdf`);
      fs.writeFileSync(file, bytes);
      files.push({ path: file, flattened });
    }
  });
  afterAll(() => process.env.KEEP || fs.rmSync(dir, { recursive: true, force: true }));

  it('is valid for pdfsig and openssl, covers the whole file, and a changed byte breaks it for both', async () => {
    const signing = detachedSigning(signer(), { subject: 'CN=combine signer, O=Formcast Tests', now });
    const out = path.join(dir, 'combined.pdf');
    const outcome = await combineFiles(files, out, signing.slot);
    const prepared = outcome.signature!;
    expect(prepared).toBeDefined();
    await embedSignatureInFile(out, prepared.byteRange, await signing.cms(Buffer.from(prepared.digest, 'hex')));

    const bytes = fs.readFileSync(out);
    expect(bytes.byteLength).toBe(outcome.size);
    // the digest made while writing is that of the byte range as it lies in the finished file
    const [a, b, c, d] = prepared.byteRange;
    expect(c + d).toBe(bytes.byteLength);
    const digest = createHash('sha256')
      .update(bytes.subarray(a, a + b))
      .update(bytes.subarray(c, c + d))
      .digest('hex');
    expect(prepared.digest).toBe(digest);

    const report = pdfsig(out);
    // one signature: the item's own stayed out (the forms' empty signature fields are listed, unsigned)
    expect(report.match(/Signature Validation:/g)).toHaveLength(1);
    expect(report).toContain('- Signature Field Name: Signature1\n');
    expect(report).toContain('Signer Certificate Common Name: combine signer');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(allSignatureParts(bytes)).toHaveLength(1);
    expect(opensslVerify(dir, bytes, 'combined', id.crt).stderr).toContain('Verification successful');
    expect((await qpdfCheck(out)).ok).toBe(true);
    expect(execFileSync('pdftotext', [out, '-']).toString()).toContain('FIRST ITEM');

    // one field, invisible, its widget on the first page next to nothing else of the item's
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    const annots = doc.getPage(0).node.lookup(PDFName.of('Annots'), PDFArray);
    const widgets = annots.asArray().map((r) => doc.context.lookup(r, PDFDict));
    expect(widgets.map((w) => w.get(PDFName.of('FT'))?.toString())).toEqual(['/Sig']);
    const signedFields = doc
      .getForm()
      .getFields()
      .filter(
        (f) => f.acroField.dict.has(PDFName.of('V')) && f.acroField.dict.get(PDFName.of('FT')) === PDFName.of('Sig'),
      );
    expect(signedFields.map((f) => f.getName())).toEqual(['Signature1']);

    const changed = Buffer.from(bytes);
    const at = a + Math.floor(b / 2); // inside the signed content, in the middle of the items
    changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
    const changedFile = path.join(dir, 'combined-changed.pdf');
    fs.writeFileSync(changedFile, changed);
    expect(pdfsig(changedFile)).not.toContain('Signature is Valid.');
    expect(opensslVerify(dir, changed, 'combined-changed', id.crt).stderr).not.toContain('Verification successful');
  });

  it('writes every byte before the signature as it is made: only the signature and cross-reference wait', async () => {
    // The sink sees the items' bytes before the combine ends; what is held back at the end (the signature
    // dictionary, xref, trailer) is small next to the file, so nothing reads or keeps the whole output.
    const signing = detachedSigning(signer(), { subject: 'CN=combine signer', now });
    const items = Array.from({ length: 6 }, (_, i) => files[i % 2]);
    const chunks: Uint8Array[] = [];
    const outcome = await combineInto(
      (async function* () {
        for (const f of items) yield { bytes: fs.readFileSync(f.path), flattened: f.flattened };
      })(),
      (chunk) => chunks.push(chunk),
      signing.slot,
    );
    expect(chunks.length).toBeGreaterThan(items.length);
    // held back: the signature dictionary (its hex /Contents), then 20 bytes per cross-reference row
    const last = Buffer.from(chunks.at(-1)!).toString('latin1');
    const objects = Number(/\/Size (\d+)/.exec(last)![1]);
    expect(last.indexOf('/Type /Sig')).toBeLessThan(200);
    expect(last.length).toBeLessThan(2 * signing.slot.contentsBytes + 20 * objects + 1024);
    expect(outcome.size - last.length).toBeGreaterThan(outcome.size / 2);
  });
});
