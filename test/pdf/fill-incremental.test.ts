// Renders on a prepared template are whole files written on its compact layout: the shared prefix,
// the objects the render reaches outside it, one cross-reference stream. Judged by independent tools:
// qpdf --check, qpdf's list of the file's objects against its rewrite (which keeps only what the
// trailer reaches), pdftk (values), pdftotext.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { prepareTemplate, renderPrepared, type PreparedTemplate } from '../../src/pdf/fill/prepare.js';
import type { FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields, pdftotext, qpdf, qpdfCheck } from '../helpers/pdf-tools.js';

const run = promisify(execFile);
const dir = corpusDir();
const missing = ['qpdf', 'pdftk', 'pdftotext'].filter((t) => !hasTool(t));
const FORMS = [
  'luxembourg-certificat-salaire-160-2019.pdf',
  'irs-f1040-2010-prefilled.pdf',
  'irs-fw9-2018.pdf',
  'pdfjs-form-example-multiselect.pdf',
  'pdflib-fancy-fields.pdf',
  'uscis-ar11-encrypted-xfa.pdf', // encrypted + XFA: the base is decrypted and loses /XFA
];

/** Text for every writable text field (tagged, so leaks are visible), checkboxes per `checked`. */
function values(analysis: TemplateAnalysis, tag: string, checked: boolean, every = 1): Record<string, FillValue> {
  const out: Record<string, FillValue> = {};
  analysis.fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly || i % every !== 0) return;
    const key = f.pdfMeta.originalName;
    if (f.type === 'checkbox') out[key] = { kind: 'check', checked };
    else if (f.type === 'text' && !f.detail.comb && !(f.maxLength && f.maxLength < 8))
      out[key] = { kind: 'text', text: `${tag}${i}` };
  });
  return out;
}

/** The numbers of the objects a file lists (object and cross-reference streams aside), by qpdf. */
async function listedObjects(file: string): Promise<number> {
  const xref = await qpdf(['--show-xref', file]);
  const listed = xref.split('\n').filter((l) => /: (uncompressed|compressed)/.test(l)).length;
  const containers = new Set([...xref.matchAll(/stream = (\d+),/g)].map((m) => m[1])).size;
  return listed - containers - 1; // the cross-reference stream lists itself
}

/** What qpdf keeps of a file when it rewrites it: only the objects the trailer reaches. */
async function reachedObjects(file: string, tmp: string): Promise<number> {
  const out = path.join(tmp, `reached-${path.basename(file)}`);
  await qpdf(['--object-streams=disable', file, out]);
  return (await qpdf(['--show-xref', out])).split('\n').filter((l) => /: uncompressed/.test(l)).length;
}

async function pdftkValues(file: string): Promise<Map<string, string | undefined>> {
  return new Map((await pdftkFields(file)).map((f) => [f.name, f.values.at(-1)]));
}

describe.skipIf(!dir || missing.length > 0)(
  `incremental renders (needs the corpus, qpdf, pdftk, pdftotext; missing: ${missing.join(', ') || 'none'})`,
  () => {
    let tmp: string;
    beforeAll(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fill-incremental-'));
    });
    afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

    for (const name of FORMS) {
      describe(name, () => {
        let analysis: TemplateAnalysis;
        let prepared: PreparedTemplate;
        beforeAll(async () => {
          const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', name)));
          analysis = await analyse(bytes);
          prepared = await prepareTemplate(bytes, analysis);
        });

        it('writes one revision, nothing unreachable, that qpdf accepts and that reads like its rewrite', async () => {
          const request = { values: values(analysis, 'Alpha', true), flatten: false };
          const out = await renderPrepared(prepared, request);
          const prefix = prepared.layout.prefix;
          expect(Buffer.from(out.bytes.subarray(0, prefix.length)).equals(Buffer.from(prefix))).toBe(true);
          const text = Buffer.from(out.bytes).toString('latin1');
          expect(text.match(/%%EOF/g)).toHaveLength(1);
          expect(text).not.toMatch(/\/Prev\b/);
          expect(text).toMatch(/\/Type \/XRef\b/);

          const file = path.join(tmp, `inc-${name}`);
          fs.writeFileSync(file, out.bytes);
          const check = await qpdfCheck(file);
          expect(check.code === 0 || check.warnings.length === 0, check.output).toBe(true);
          expect(await listedObjects(file)).toBe(await reachedObjects(file, tmp));
          // qpdf rewrites the file from what it reaches: pdftk must read the same values from both.
          const rewritten = path.join(tmp, `rewritten-${name}`);
          await run('qpdf', [file, rewritten]).catch((e: { code?: number }) => {
            if (e.code !== 3) throw e; // 3 = warnings only
          });
          const [inc, full] = await Promise.all([pdftkValues(file), pdftkValues(rewritten)]);
          expect(inc.size).toBeGreaterThan(0);
          expect([...inc]).toEqual([...full]);
          for (const [key, v] of Object.entries(request.values)) {
            if (v.kind === 'text' && inc.has(key)) expect(inc.get(key), key).toBe(v.text);
          }
        });

        it('keeps no trace of an earlier render in the next one', async () => {
          const first = values(analysis, 'First', true);
          const second = values(analysis, 'Second', false, 2); // every other field, boxes off
          const before = await renderPrepared(prepared, { values: {}, flatten: false });
          await renderPrepared(prepared, { values: first, flatten: false });
          const untouched = await renderPrepared(prepared, { values: {}, flatten: false });
          expect(Buffer.from(untouched.bytes).equals(Buffer.from(before.bytes))).toBe(true);
          const out = await renderPrepared(prepared, { values: second, flatten: false });
          const file = path.join(tmp, `second-${name}`);
          fs.writeFileSync(file, out.bytes);
          const got = await pdftkValues(file);
          const leaked = [...got].filter(([, v]) => v?.startsWith('First'));
          expect(leaked).toEqual([]);
          for (const [key, v] of Object.entries(second)) {
            if (!got.has(key)) continue;
            if (v.kind === 'text') expect(got.get(key), key).toBe(v.text);
            if (v.kind === 'check') expect([undefined, '', 'Off']).toContain(got.get(key));
          }
        });

        it('flattens to a file without fields that shows the values, and the next render has its fields again', async () => {
          const request = { values: values(analysis, 'Flat', true), flatten: true };
          const out = await renderPrepared(prepared, request);
          const file = path.join(tmp, `flat-${name}`);
          fs.writeFileSync(file, out.bytes);
          const [check, fields, text] = await Promise.all([
            qpdfCheck(file),
            pdftkFields(file),
            pdftotext(file, { raw: true }),
          ]);
          expect(check.code === 0 || check.warnings.length === 0, check.output).toBe(true);
          expect(fields).toEqual([]);
          // No field or widget dictionary, nothing unreachable, and smaller than the interactive output.
          expect(Buffer.from(out.bytes).toString('latin1')).not.toMatch(/\/(Widget|AcroForm|FT)\b/);
          expect(await listedObjects(file)).toBe(await reachedObjects(file, tmp));
          const form = await renderPrepared(prepared, { ...request, flatten: false });
          expect(out.bytes.length).toBeLessThan(form.bytes.length);
          const page = text.replace(/\s+/g, '');
          const shown = Object.values(request.values).filter((v) => v.kind === 'text' && page.includes(v.text));
          // Some widgets are hidden or too small to show a whole tag: most values must be there.
          expect(shown.length).toBeGreaterThan(
            Object.values(request.values).filter((v) => v.kind === 'text').length * 0.8,
          );

          const again = await renderPrepared(prepared, { values: {}, flatten: false });
          const againFile = path.join(tmp, `again-${name}`);
          fs.writeFileSync(againFile, again.bytes);
          expect((await pdftkFields(againFile)).length).toBeGreaterThan(0);
        });
      });
    }

    it('serializes concurrent renders of one prepared template', async () => {
      const name = 'luxembourg-certificat-salaire-160-2019.pdf';
      const bytes = new Uint8Array(fs.readFileSync(path.join(dir!, 'pdfs', name)));
      const analysis = await analyse(bytes);
      const prepared = await prepareTemplate(bytes, analysis);
      const requests = ['One', 'Two', 'Three'].map((tag) => ({
        values: values(analysis, tag, tag !== 'Two'),
        flatten: false,
      }));
      const outs = await Promise.all(requests.map((r) => renderPrepared(prepared, r)));
      for (let i = 0; i < outs.length; i++) {
        const file = path.join(tmp, `concurrent-${i}.pdf`);
        fs.writeFileSync(file, outs[i].bytes);
        const got = await pdftkValues(file);
        for (const [key, v] of Object.entries(requests[i].values)) {
          if (v.kind === 'text' && got.has(key)) expect(got.get(key), key).toBe(v.text);
        }
      }
    });
  },
);
