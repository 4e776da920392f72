// Outputs leave out what filling would make wrong: usage rights (Reader would warn that the
// reader-extended file was modified) and XFA. The analysis lists both, and qpdf confirms the output.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { corpusDir, loadManifest } from '../helpers/corpus.js';
import { hasTool, qpdf } from '../helpers/pdf-tools.js';

const dir = corpusDir();

/** One object as qpdf prints it. */
const show = (file: string, object: string) => qpdf(['--password=', `--show-object=${object}`, file]);

/** The catalog of the file's last revision with its /Perms dictionary, as qpdf prints them. */
async function catalogOf(file: string): Promise<string> {
  const root = /\/Root (\d+) (\d+) R/.exec(await show(file, 'trailer'));
  if (!root) throw new Error(`no /Root in ${file}`);
  const catalog = await show(file, `${root[1]},${root[2]}`);
  const perms = /\/Perms (\d+) (\d+) R/.exec(catalog);
  return perms ? `${catalog}\n${await show(file, `${perms[1]},${perms[2]}`)}` : catalog;
}

describe.skipIf(!dir || !hasTool('qpdf'))('features every output leaves out', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'removals-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const forms = dir ? loadManifest().files.filter((f) => f.validAcroForm) : [];

  it.each(forms.map((f) => [path.basename(f.file)]))(
    '%s: the analysis lists usage rights and XFA exactly when the template has them, and outputs have neither',
    async (name) => {
      const file = path.join(dir!, 'pdfs', name);
      const bytes = new Uint8Array(fs.readFileSync(file));
      const analysis = await analyse(bytes);
      const original = await catalogOf(file);
      const features = (analysis.removedFromOutput ?? []).map((r) => r.feature);
      expect(features.includes('usage-rights'), 'usage-rights listed').toBe(/\/UR3?\b/.test(original));
      expect(features.includes('xfa'), 'xfa listed').toBe(analysis.hasXfa);
      for (const flatten of [false, true]) {
        const out = path.join(tmp, `${flatten}-${name}`);
        fs.writeFileSync(out, (await fillPdf(bytes, analysis, { values: {}, flatten })).bytes);
        const catalog = await catalogOf(out);
        expect(catalog, `catalog of the ${flatten ? 'flattened' : 'interactive'} output`).not.toMatch(/\/UR3?\b/);
      }
    },
  );

  it('finds reader-extended forms in the corpus (so the test above proves something)', async () => {
    let extended = 0;
    for (const f of forms) {
      const analysis = await analyse(new Uint8Array(fs.readFileSync(path.join(dir!, f.file))));
      if (analysis.removedFromOutput?.some((r) => r.feature === 'usage-rights')) extended++;
    }
    expect(extended).toBeGreaterThan(3);
  });
});
