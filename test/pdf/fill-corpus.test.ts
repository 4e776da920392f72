// fillPdf() on every valid form of the shared corpus, judged only by independent tools: pdftk reads
// the values back from the unflattened output; the flattened output passes qpdf --check, has no
// fields left, and shows every text value to pdftotext.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { AnalysedField, FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir, loadManifest } from '../helpers/corpus.js';
import { hasTool, pdftkCannotReport, pdftkFields, pdftotext, qpdfCheck } from '../helpers/pdf-tools.js';

const dir = corpusDir();
const forms = dir ? loadManifest().files.filter((f) => f.validAcroForm) : [];
const tools = ['qpdf', 'pdftk', 'pdftotext'].filter((t) => !hasTool(t));
const UNICODE = 'Zoë Łódź Привет 東京';

/** Values for every fillable field: text (every third one non-Latin), checked boxes, an option each. */
function sampleValues(analysis: TemplateAnalysis): Record<string, FillValue> {
  const values: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly) return;
    const key = f.pdfMeta.originalName;
    const last = (xs: string[] | undefined) => xs?.filter((x) => x.trim() !== '').at(-1);
    switch (f.type) {
      case 'checkbox':
        values[key] = { kind: 'check', checked: true };
        break;
      case 'radio':
      case 'dropdown': {
        const opts = f.options?.filter((x) => x.trim() !== '') ?? [];
        if (f.detail.multiSelect && opts.length > 1) values[key] = { kind: 'choices', values: opts.slice(0, 2) };
        else if (last(f.options)) values[key] = { kind: 'choice', value: last(f.options)! };
        break;
      }
      default: {
        let text = i % 3 === 0 ? UNICODE : `Val${i} ok`;
        if (f.detail.multiline) text = `${UNICODE} then a longer sentence that has to wrap onto more lines ${i}`;
        if (f.maxLength) text = Array.from(text).slice(0, f.maxLength).join('');
        values[key] = { kind: 'text', text };
      }
    }
  });
  return values;
}

const squash = (s: string) => s.replace(/\s+/g, '');

describe.skipIf(!dir)('fillPdf on the corpus (needs ../shared/corpus or CORPUS_DIR)', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fill-corpus-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe.skipIf(tools.length > 0)(
    `checked with qpdf, pdftk and poppler (missing: ${tools.join(', ') || 'none'})`,
    () => {
      for (const entry of forms) {
        const name = path.basename(entry.file);
        describe(name, () => {
          let bytes: Uint8Array;
          let analysis: TemplateAnalysis;
          let values: Record<string, FillValue>;
          let byKey: Map<string, AnalysedField>;
          beforeAll(async () => {
            bytes = new Uint8Array(fs.readFileSync(path.join(dir!, entry.file)));
            analysis = await analyse(bytes);
            values = sampleValues(analysis);
            byKey = new Map(analysis.fields.map((f) => [f.pdfMeta.originalName, f]));
          });

          it('keeps every value readable by pdftk when not flattened', async (ctx) => {
            const out = path.join(tmp, `open-${name}`);
            fs.writeFileSync(out, (await fillPdf(bytes, analysis, { values, flatten: false })).bytes);
            let fields;
            try {
              fields = await pdftkFields(out);
            } catch {
              ctx.skip(); // pdftk-java cannot read a few files at all (NullPointerException): not ours to judge
              return;
            }
            const got = new Map(fields.map((f) => [f.name, f.values]));
            const missing: string[] = [];
            for (const [key, value] of Object.entries(values)) {
              const info = byKey.get(key)!;
              if (!got.has(key) || info.type === 'signature') continue; // pdftk-java skips a few kinds (field-list.test.ts checks reachability)
              const seen = got.get(key)!;
              const ok =
                // pdftk prints an extra empty FieldValue line for some fields: the last one is the value
                value.kind === 'text'
                  ? seen.at(-1) === value.text
                  : value.kind === 'check'
                    ? !!seen.at(-1) && seen.at(-1) !== 'Off'
                    : value.kind === 'choices'
                      ? value.values.every((v) => seen.includes(v))
                      : value.kind === 'choice' && info.type === 'radio'
                        ? (!!seen.at(-1) && seen.at(-1) !== 'Off') || pdftkCannotReport(info, value.value)
                        : value.kind === 'choice'
                          ? seen.at(-1) === value.value
                          : true;
              if (!ok) missing.push(`${key}: ${JSON.stringify(value)} -> ${JSON.stringify(seen)}`);
            }
            expect(missing).toEqual([]);
          });

          it('flattens to a clean PDF without fields that shows every text value', async () => {
            const out = path.join(tmp, `flat-${name}`);
            const result = await fillPdf(bytes, analysis, { values, flatten: true });
            fs.writeFileSync(out, result.bytes);
            // Values the engine reported as not shown (hidden widget, signed field) or cut off (text
            // too long for its box: only its beginning must show).
            // Warnings name fields by their schema name.
            const warned = (key: string, what: RegExp) =>
              result.warnings.some((w) => w.includes(`"${byKey.get(key)!.name}"`) && what.test(w));
            const [check, fields, text] = await Promise.all([
              qpdfCheck(out),
              pdftkFields(out).catch(() => []),
              pdftotext(out, { raw: true }),
            ]);
            expect(check.code === 0 || check.warnings.length === 0, check.output).toBe(true);
            expect(fields).toEqual([]);
            const page = squash(text);
            const absent = Object.entries(values)
              .filter(([k, v]) => v.kind === 'text' && !warned(k, /hidden|signed|not printed/))
              .filter(([k, v]) => {
                const text = squash((v as { text: string }).text);
                // A cut value shows the characters the warning counts (whole words) or its first lines.
                const cut = result.warnings.find((w) => w.includes(`"${byKey.get(k)!.name}"`) && /cut off/.test(w));
                const chars = cut && /\((\d+) of \d+ characters shown\)/.exec(cut);
                const shown = chars
                  ? squash(
                      Array.from((v as { text: string }).text)
                        .slice(0, Number(chars[1]))
                        .join(''),
                    )
                  : cut
                    ? Array.from(text).slice(0, 3).join('')
                    : text;
                return !page.includes(shown);
              })
              .map(([k, v]) => `${k}: ${(v as { text: string }).text}`);
            expect(absent).toEqual([]);
          });
        });
      }
    },
  );
});
