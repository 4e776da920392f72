// The offline render's early hint that a document has scripts (its sandbox then starts before the analysis).
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { prepareTemplate } from '../../src/pdf/fill/prepare.js';
import { loadPdf } from '../../src/pdf/load.js';
import { mayRunScripts } from '../../src/pdf/scripts/may-run-scripts.js';
import { mayOpenSession } from '../../src/pdf/scripts/session-plan.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const dir = corpus && path.join(corpus, 'pdfs');

describe('mayRunScripts', () => {
  it.skipIf(!dir)(
    'says yes for every corpus form whose renders may open a session, and no for those whose checks need none',
    async () => {
      const forms = fs.readdirSync(dir!).filter((f) => f.endsWith('.pdf') && !f.startsWith('negative'));
      const opens: string[] = [];
      const none: string[] = [];
      for (const f of forms) {
        const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, f)));
        const plan = (await prepareTemplate(bytes, await analyse(bytes))).state.scripts;
        if (!plan) continue;
        const early = mayRunScripts((await loadPdf(bytes)).context);
        if (mayOpenSession(plan)) {
          opens.push(f);
          expect(early, f).toBe(true);
        } else {
          none.push(f);
          expect(early, f).toBe(false);
        }
      }
      expect(opens.length).toBeGreaterThanOrEqual(2);
      expect(none.length).toBeGreaterThanOrEqual(3);
      // forms whose scripts are Acrobat's number, date and AFSpecial checks and formats alone (B107 among them)
      expect(none).toContain('uscourts-b107-financial-affairs.pdf');
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

  it('says no for keystroke checks answered without a session and for format scripts, yes for any other check', async () => {
    const withActions = async (aa: Record<string, string>) => {
      const doc = await PDFDocument.create();
      const ctx = doc.context;
      const actions = Object.fromEntries(
        Object.entries(aa).map(([k, js]) => [k, ctx.register(ctx.obj({ S: 'JavaScript', JS: PDFString.of(js) }))]),
      );
      const widget = ctx.obj({ Type: 'Annot', Subtype: 'Widget', AA: ctx.obj(actions) });
      doc.addPage().node.set(PDFName.of('Annots'), ctx.obj([widget]));
      return mayRunScripts((await loadPdf(await doc.save())).context);
    };
    expect(await withActions({ K: 'AFSpecial_Keystroke(3);', F: 'AFSpecial_Format(3);' })).toBe(false);
    expect(await withActions({ K: 'AFNumber_Keystroke(2, 0, 0, 0, "", true);' })).toBe(false);
    expect(await withActions({ K: 'AFSpecial_KeystrokeEx("999-99");' })).toBe(false);
    expect(await withActions({ F: 'event.value = "x";' })).toBe(false);
    expect(await withActions({ K: 'if (event.change) event.rc = false;' })).toBe(true);
    expect(await withActions({ V: 'event.rc = event.value > 0;' })).toBe(true);
    expect(await withActions({ C: 'AFSimple_Calculate("SUM", ["a"]);' })).toBe(true);
  });
});
