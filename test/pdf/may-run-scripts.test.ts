// The offline render's early hint that a document has scripts (its sandbox then starts before the analysis).
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { prepareTemplate } from '../../src/pdf/fill/prepare.js';
import { loadPdf } from '../../src/pdf/load.js';
import { mayRunScripts } from '../../src/pdf/scripts/may-run-scripts.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const dir = corpus && path.join(corpus, 'pdfs');

describe('mayRunScripts', () => {
  it.skipIf(!dir)(
    'says yes for every corpus form whose preparation plans scripts',
    async () => {
      const forms = fs.readdirSync(dir!).filter((f) => f.endsWith('.pdf') && !f.startsWith('negative'));
      let planned = 0;
      for (const f of forms) {
        const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, f)));
        const prepared = await prepareTemplate(bytes, await analyse(bytes));
        if (!prepared.state.scripts) continue;
        planned++;
        expect(mayRunScripts((await loadPdf(bytes)).context), f).toBe(true);
      }
      expect(planned).toBeGreaterThan(3);
    },
    300_000,
  );

  it.skipIf(!dir)('says no for a corpus form without any JavaScript action', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'libreoffice-form.pdf')));
    expect(mayRunScripts((await loadPdf(bytes)).context)).toBe(false);
  });

  it('finds an action nested as a direct object in a widget', async () => {
    const doc = await PDFDocument.create();
    const ctx = doc.context;
    const action = ctx.obj({ S: 'JavaScript', JS: PDFString.of('event.value = 1;') });
    const widget = ctx.obj({ Type: 'Annot', Subtype: 'Widget', AA: ctx.obj({ C: action }) });
    doc.addPage().node.set(PDFName.of('Annots'), ctx.obj([widget]));
    const loaded = await loadPdf(await doc.save());
    expect(mayRunScripts(loaded.context)).toBe(true);
  });
});
