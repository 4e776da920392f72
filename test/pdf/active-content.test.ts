// Outputs carry no active content: scripts, launching and submitting actions, embedded files and
// (unless the operator keeps them) web links. Proven by qpdf: it rewrites only what is reachable
// from the output's trailer, so whatever remains in its rewrite is what a viewer could reach.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import { corpusDir, loadManifest } from '../helpers/corpus.js';
import { activeContent, javascriptLaden } from '../helpers/hostile-pdfs.js';
import { hasTool, reachableObjects } from '../helpers/pdf-tools.js';

const ACTIVE =
  /\/(JavaScript|JS|Launch|SubmitForm|ImportData|GoToR|GoToE|EmbeddedFiles|EmbeddedFile|FileAttachment|OpenAction|AA)\b/;

async function reachable(bytes: Uint8Array, dir: string): Promise<string> {
  const input = path.join(dir, `in-${Math.random().toString(36).slice(2)}.pdf`);
  fs.writeFileSync(input, bytes);
  return reachableObjects(input);
}

describe.skipIf(!hasTool('qpdf'))('active content in outputs', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'active-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('lists every kind the template has in the analysis', async () => {
    const analysis = await analyse(new Uint8Array(activeContent()));
    expect(analysis.removedFromOutput!.map((r) => r.feature)).toEqual([
      'javascript',
      'launch-actions',
      'submit-actions',
      'embedded-files',
      'uri-links',
    ]);
    expect((await analyse(new Uint8Array(javascriptLaden()))).removedFromOutput!.map((r) => r.feature)).toEqual([
      'javascript',
    ]);
  });

  for (const flatten of [false, true]) {
    it(`leaves none of it reachable in ${flatten ? 'flattened' : 'interactive'} outputs, and keeps navigation links`, async () => {
      const bytes = new Uint8Array(activeContent());
      const before = await reachable(bytes, tmp);
      expect(before).toMatch(ACTIVE); // the check can see it
      const out = await fillPdf(bytes, await analyse(bytes), {
        values: { name: { kind: 'text', text: 'Ada' } },
        flatten,
      });
      const after = await reachable(out.bytes, tmp);
      expect(after.match(new RegExp(ACTIVE.source, 'g')) ?? []).toEqual([]);
      expect(after).not.toMatch(/\/URI\b/);
      expect(after).not.toContain('attached payload');
      // Not even as unreachable bytes: nothing stripped rides along in the file.
      const raw = Buffer.from(out.bytes).toString('latin1');
      for (const gone of ['app.alert', 'attached payload', 'bookmark.exe', 'bookmarkScript', 'calc.exe'])
        expect(raw).not.toContain(gone);
      expect(after).toMatch(/\/S \/GoTo\b/);
    });
  }

  it('drops a link whose action chain is too long to read whole', async () => {
    const { PDFDocument } = await import('@cantoo/pdf-lib');
    const doc = await PDFDocument.create();
    const page = doc.addPage([300, 300]);
    doc.getForm().createTextField('t').addToPage(page, { x: 10, y: 10, width: 100, height: 20 });
    let chain = doc.context.obj({ S: 'JavaScript', JS: 'deepScript()' });
    for (let i = 0; i < 1100; i++)
      chain = doc.context.obj({ S: 'GoTo', D: [page.ref, 'Fit'], Next: doc.context.register(chain) });
    const link = doc.context.register(
      doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 50, 50], A: chain }),
    );
    page.node.addAnnot(link);
    const bytes = await doc.save();
    const analysis = await analyse(bytes);
    expect(analysis.removedFromOutput!.map((r) => r.feature)).toContain('javascript');
    const out = await fillPdf(bytes, analysis, { values: {}, flatten: false });
    expect(Buffer.from(out.bytes).toString('latin1')).not.toContain('deepScript');
  });

  it('keeps plain web links when asked (OUTPUT_URI_LINKS), and nothing else', async () => {
    const bytes = new Uint8Array(activeContent());
    const out = await fillPdf(bytes, await analyse(bytes), { values: {}, flatten: false, keepUriLinks: true });
    const after = await reachable(out.bytes, tmp);
    expect(after).toContain('https://example.com/help');
    expect(after.match(new RegExp(ACTIVE.source, 'g')) ?? []).toEqual([]);
  });

  const dir = corpusDir();
  it.skipIf(!dir)(
    'strips scripts from every corpus form that has them, interactive and flattened',
    async () => {
      const scripted: string[] = [];
      // prepared once per form for both renders, as an engine does
      const cache = new TemplateCache({ maxEntries: 4, maxBytes: 256 * 1024 * 1024 });
      for (const entry of loadManifest().files.filter((f) => f.validAcroForm)) {
        const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, entry.file)));
        const analysis = await analyse(bytes);
        if (!analysis.removedFromOutput?.some((r) => r.feature === 'javascript')) continue;
        scripted.push(entry.file);
        for (const flatten of [false, true]) {
          const after = await reachable(
            (await fillPdf(bytes, analysis, { values: {}, flatten }, entry.file, cache)).bytes,
            tmp,
          );
          expect(after.match(/\/(JavaScript|JS|AA)\b/g) ?? [], `${entry.file} ${flatten ? 'flat' : 'open'}`).toEqual(
            [],
          );
        }
      }
      expect(scripted.length).toBeGreaterThan(3);
    },
    240_000,
  ); // every scripted corpus form rendered twice: minutes on a saturated 2-core machine
});
