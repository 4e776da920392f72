// Unicode renders on one prepared template reuse its font subsets: a render that needs no new glyph
// neither subsets nor shapes again and writes the very same font program; a character that appears
// later grows the subset, and every value, old and new, still comes back from pdftotext.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { FALLBACK_FILES, FontLibrary } from '../../src/pdf/fonts/font-library.js';
import { prepareTemplate, renderPrepared, type PreparedTemplate } from '../../src/pdf/fill/prepare.js';
import type { FillValue, TemplateAnalysis } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftotext } from '../helpers/pdf-tools.js';

const dir = corpusDir();
const FORM = 'osha-300-injury-illness-forms.pdf';
const formPath = dir ? path.join(dir, 'pdfs', FORM) : '';
const available = !!dir && fs.existsSync(formPath);
const ARABIC = FALLBACK_FILES.findIndex((f) => f.includes('arabic'));
const CJK = FALLBACK_FILES.findIndex((f) => f.includes('-sc/'));

const text = (t: string): FillValue => ({ kind: 'text', text: t });
const FIRST: Record<string, FillValue> = {
  '301 Facility Name': text('مرحبا بالعالم'),
  '301 What Harmed Employee': text('東京 你好世界'),
};
/** the same values plus a word with Arabic letters and a CJK character the first render did not use */
const LATER: Record<string, FillValue> = {
  ...FIRST,
  '301 Facility Address Street': text('شكرا جزيلا'),
  '301 What Happened': text('大阪'),
};

/** The FontFile2 bytes of every bundled (Noto) font embedded in an output, by FontName without its subset tag. */
async function fontPrograms(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const out = new Map<string, Uint8Array>();
  for (const [, obj] of doc.context.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFDict)) continue;
    const program = obj.lookup(PDFName.of('FontFile2'));
    const name = String(obj.get(PDFName.of('FontName')));
    if (program instanceof PDFRawStream && name.includes('NotoSans'))
      out.set(name.replace(/^\/[A-Z]{6}\+/, ''), program.getContents());
  }
  return out;
}

describe.skipIf(!available)(`font subsets reused across renders of one prepared ${FORM}`, () => {
  let tmp: string;
  let analysis: TemplateAnalysis;
  let prepared: PreparedTemplate;
  let library: FontLibrary;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'font-subsets-'));
    const bytes = new Uint8Array(fs.readFileSync(formPath));
    analysis = await analyse(bytes);
    library = new FontLibrary({ shapeCacheEntries: 100 });
    prepared = await prepareTemplate(bytes, analysis, { keepUriLinks: false, fonts: library });
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('subsets and shapes once, then writes the same font programs while no new glyph is needed', async () => {
    const arabic = library.font(ARABIC)!.font;
    const cjk = library.font(CJK)!.font;
    const subsets = [vi.spyOn(arabic, 'createSubset'), vi.spyOn(cjk, 'createSubset')];
    const layout = vi.spyOn(arabic, 'layout');

    const first = await renderPrepared(prepared, { values: FIRST, flatten: true });
    expect(subsets.map((s) => s.mock.calls.length)).toEqual([1, 1]);
    expect(layout.mock.calls.length).toBeGreaterThan(0);
    const shaped = layout.mock.calls.length;

    const second = await renderPrepared(prepared, { values: FIRST, flatten: true });
    expect(subsets.map((s) => s.mock.calls.length)).toEqual([1, 1]); // not subset again
    expect(layout.mock.calls.length).toBe(shaped); // not shaped again
    expect(second.bytes.length).toBe(first.bytes.length);
    const a = await fontPrograms(first.bytes);
    const b = await fontPrograms(second.bytes);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    expect(a.size).toBe(2);
    for (const [name, program] of a) expect(Buffer.from(b.get(name)!).equals(Buffer.from(program)), name).toBe(true);

    // New characters: each subset grows once (encoded again with the new glyphs appended).
    const later = await renderPrepared(prepared, { values: LATER, flatten: true });
    expect(subsets.map((s) => s.mock.calls.length)).toEqual([2, 2]);
    const c = await fontPrograms(later.bytes);
    for (const [name, program] of a) expect(c.get(name)!.length).toBeGreaterThan(program.length);

    // ... and the render after that reuses the grown subsets.
    await renderPrepared(prepared, { values: FIRST, flatten: true });
    expect(subsets.map((s) => s.mock.calls.length)).toEqual([2, 2]);

    fs.writeFileSync(path.join(tmp, 'later.pdf'), later.bytes);
    fs.writeFileSync(path.join(tmp, 'first.pdf'), first.bytes);
  });

  it('reports characters no font has on every render, the value planned before or not', async () => {
    // U+12000 (cuneiform) is in no bundled font; the value's plan is remembered after the first render.
    const values = { '301 Facility Name': text('Łódź \u{12000} مرحبا') };
    for (let i = 0; i < 2; i++) {
      const { warnings } = await renderPrepared(prepared, { values, flatten: true });
      expect(warnings.join('\n')).toContain('\u{12000}');
    }
  });

  it.skipIf(!hasTool('pdftotext'))('gives every value back to pdftotext, the later characters included', async () => {
    const first = await pdftotext(path.join(tmp, 'first.pdf'));
    const later = await pdftotext(path.join(tmp, 'later.pdf'));
    const plain = (s: string) => s.normalize('NFKC').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
    for (const t of ['مرحبا بالعالم', '東京 你好世界']) {
      expect(plain(first)).toContain(t);
      expect(plain(later)).toContain(t);
    }
    expect(plain(later)).toContain('شكرا جزيلا');
    expect(plain(later)).toContain('大阪');
    expect(plain(first)).not.toContain('大阪');
  });
});
