// Flattened pages stay whole in every viewer: appended content starts from a balanced graphics
// state whatever the page's own content does, and only what a viewer would print is drawn.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, PDFName, PDFNumber } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { composeBalances, contentBalance, enclosing } from '../../src/pdf/content-balance.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import { TemplateCache } from '../../src/pdf/fill/template-cache.js';
import type { FillValue } from '../../src/pdf/types.js';
import { hasTool } from '../helpers/pdf-tools.js';
import { noRotateForm, outsideBoxesForm } from '../helpers/fidelity-forms.js';

const run = promisify(execFile);
const enc = (s: string) => new TextEncoder().encode(s);

describe('contentBalance', () => {
  it('counts q and Q operators and the lowest depth reached', () => {
    expect(contentBalance(enc('q 1 0 0 1 5 5 cm Q Q 0 g'))).toEqual({ net: -1, min: -1 });
    expect(contentBalance(enc('q q BT ET Q'))).toEqual({ net: 1, min: 0 });
  });

  it('ignores q and Q inside strings, hex strings, names, comments and inline images', () => {
    const content = '(Q\\) (q) Q) Tj <51> Tj /Q gs % Q Q Q\nBI /W 1 /H 1 /BPC 8 /CS /G ID QQ q EI\nq';
    expect(contentBalance(enc(content))).toEqual({ net: 1, min: 0 });
  });

  it('encloses unbalanced content so that what follows starts at depth 0', () => {
    for (const content of ['Q Q', 'q q q', 'Q q q', '']) {
      const b = composeBalances([contentBalance(enc(content))]);
      const { before, after } = enclosing(b);
      const whole = contentBalance(enc(`${before}${content}${after}`));
      expect(whole, content).toEqual({ net: 0, min: 0 });
    }
  });
});

const tools = ['pdftotext', 'pdftoppm'].filter((t) => !hasTool(t));

describe.skipIf(tools.length > 0)(`flattened pages in poppler (missing: ${tools.join(', ') || 'none'})`, () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flat-pages-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A form whose pages have the given own content (undefined: no /Contents at all), one text field each. */
  async function formWith(contents: (string | undefined)[]): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const form = doc.getForm();
    contents.forEach((content, i) => {
      const page = doc.addPage([300, 200]);
      page.node.delete(PDFName.of('Contents'));
      if (content !== undefined)
        page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(content)));
      form.createTextField(`f${i}`).addToPage(page, { x: 20, y: 100, width: 200, height: 24 });
    });
    return doc.save();
  }

  async function flatten(bytes: Uint8Array, values: Record<string, string>) {
    const analysis = await analyse(bytes);
    return fillPdf(bytes, analysis, {
      values: Object.fromEntries(Object.entries(values).map(([k, text]) => [k, { kind: 'text', text }])),
      flatten: true,
    });
  }

  async function wordsOnPage(bytes: Uint8Array, page: number): Promise<{ word: string; xMin: number; yMin: number }[]> {
    const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.pdf`);
    fs.writeFileSync(file, bytes);
    const { stdout } = await run('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-']);
    return [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g)].map((m) => ({
      word: m[3],
      xMin: Number(m[1]),
      yMin: Number(m[2]),
    }));
  }

  it('shows values on a page that has no content of its own', async () => {
    const out = await flatten(await formWith([undefined]), { f0: 'Alpha' });
    expect((await wordsOnPage(out.bytes, 1)).map((w) => w.word)).toContain('Alpha');
  });

  it('shows values in place after page content that restores more than it saves', async () => {
    const out = await flatten(await formWith(['Q Q 0 0 1 rg 0 0 10 10 re f']), { f0: 'Bravo' });
    const word = (await wordsOnPage(out.bytes, 1)).find((w) => w.word === 'Bravo');
    expect(word).toBeDefined();
    expect(word!.xMin).toBeGreaterThan(20);
    expect(word!.xMin).toBeLessThan(40);
  });

  it('shows values in place after page content that leaves a scaled state open', async () => {
    const out = await flatten(await formWith(['q q 3 0 0 3 0 0 cm 0 0 10 10 re f']), { f0: 'Charlie' });
    const word = (await wordsOnPage(out.bytes, 1)).find((w) => w.word === 'Charlie');
    expect(word).toBeDefined();
    // Widget at x 20..220, y 100..124 in a 200 pt high page: top-left coordinates y ~76..100.
    expect(word!.xMin).toBeLessThan(40);
    expect(word!.yMin).toBeGreaterThan(70);
    expect(word!.yMin).toBeLessThan(100);
  });

  it('draws the page with ink in poppler when it had no content stream', async () => {
    const out = await flatten(await formWith([undefined, 'q 0 0 0 rg 10 10 50 50 re f Q']), {
      f0: 'Delta',
      f1: 'Echo',
    });
    const file = path.join(tmp, 'ink.pdf');
    fs.writeFileSync(file, out.bytes);
    const { stderr } = await run('pdftoppm', ['-r', '20', '-gray', '-f', '1', '-l', '1', file, path.join(tmp, 'ink')]);
    expect(stderr).not.toMatch(/Restore|unmatched/i);
    expect((await wordsOnPage(out.bytes, 1)).map((w) => w.word)).toEqual(['Delta']);
  });
});

describe.skipIf(!hasTool('pdftotext'))('flattening follows the print flags', () => {
  async function formWithFlags(flags: Record<string, number | undefined>): Promise<Uint8Array> {
    const doc = await PDFDocument.create();
    const page = doc.addPage([400, 300]);
    const form = doc.getForm();
    Object.entries(flags).forEach(([name, f], i) => {
      const field = form.createTextField(name);
      field.addToPage(page, { x: 20, y: 20 + i * 40, width: 300, height: 24 });
      const widget = field.acroField.getWidgets()[0].dict;
      if (f === undefined) widget.delete(PDFName.of('F'));
      else widget.set(PDFName.of('F'), PDFNumber.of(f));
    });
    return doc.save();
  }

  it('leaves out widgets without the Print flag and hidden ones, and says so', async () => {
    const bytes = await formWithFlags({ printed: 4, screenOnly: 0, noFlags: undefined, hidden: 4 | 2, noView: 4 | 32 });
    const analysis = await analyse(bytes);
    const values = Object.fromEntries(
      analysis.fields.map((f) => [
        f.pdfMeta.originalName,
        { kind: 'text' as const, text: `Value${f.pdfMeta.originalName}` },
      ]),
    );
    const out = await fillPdf(bytes, analysis, { values, flatten: true });
    const file = path.join(os.tmpdir(), `flags-${process.pid}.pdf`);
    fs.writeFileSync(file, out.bytes);
    const { stdout } = await run('pdftotext', [file, '-']);
    fs.rmSync(file, { force: true });
    expect(stdout).toContain('Valueprinted');
    for (const gone of ['screenOnly', 'noFlags', 'hidden', 'noView']) expect(stdout).not.toContain(`Value${gone}`);
    expect(out.warnings.filter((w) => /not printed/.test(w))).toHaveLength(2);
    expect(out.warnings.filter((w) => /hidden/.test(w))).toHaveLength(2);
  });

  it('keeps screen-only widgets as fields when not flattened', async () => {
    const bytes = await formWithFlags({ screenOnly: 0 });
    const analysis = await analyse(bytes);
    const out = await fillPdf(bytes, analysis, {
      values: { screenOnly: { kind: 'text', text: 'Kept' } },
      flatten: false,
    });
    expect(out.warnings).toEqual([]);
  });
});

describe.skipIf(!hasTool('pdftotext'))('flattening NoRotate widgets and fields outside the page', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flat-norotate-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const fill = async (bytes: Uint8Array, flatten: boolean) => {
    const analysis = await analyse(bytes);
    const values = Object.fromEntries(
      analysis.fields.map((f) => [f.pdfMeta.originalName, { kind: 'text' as const, text: f.name.slice(0, 7) }]),
    );
    return fillPdf(bytes, analysis, { values, flatten });
  };
  /** Word boxes as poppler lays them out on the page as shown (/Rotate applied), page by page. */
  const words = async (bytes: Uint8Array) => {
    const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.pdf`);
    fs.writeFileSync(file, bytes);
    const { stdout } = await run('pdftotext', ['-bbox', file, '-']);
    return stdout
      .split('</page>')
      .map((page) => [...page.matchAll(/<word ([^>]*)>([^<]*)<\/word>/g)].map((m) => `${m[2]} ${m[1]}`));
  };

  it('draws NoRotate widgets upright on pages turned 90, 180 and 270 degrees, where poppler shows them unflattened', async () => {
    const bytes = await noRotateForm();
    const [open, flat] = [await fill(bytes, false), await fill(bytes, true)];
    const shown = await words(flat.bytes);
    expect(shown).toEqual(await words(open.bytes));
    // upright: each NoRotate value is one horizontal word on the page as shown
    for (const page of shown.slice(0, 3)) {
      const upright = page.find((w) => w.startsWith('upright '))!;
      const [x0, y0, x1, y1] = [...upright.matchAll(/="([\d.]+)"/g)].map((m) => Number(m[1]));
      expect(x1 - x0).toBeGreaterThan(y1 - y0);
    }
  });

  it('warns, naming the field, when a value is written where no viewer can show it (outside the CropBox or MediaBox)', async () => {
    const bytes = await outsideBoxesForm();
    for (const flatten of [false, true]) {
      const outside = (await fill(bytes, flatten)).warnings.filter((w) => w.includes('outside'));
      expect(outside).toEqual([
        `field "cropped" lies outside its page's visible area (MediaBox/CropBox); its value is stored but never shown`,
        `field "offPage" lies outside its page's visible area (MediaBox/CropBox); its value is stored but never shown`,
      ]);
    }
  });
});

describe('fields outside the shown area, on a prepared (cached) template', () => {
  it('warns on every render for the same fields, whatever the render before it wrote or cleared', async () => {
    const bytes = await outsideBoxesForm();
    const analysis = await analyse(bytes);
    const cache = new TemplateCache({ maxEntries: 1, maxBytes: 64 * 1024 * 1024 });
    const text = (t: string) => ({ kind: 'text' as const, text: t });
    const all = Object.fromEntries(analysis.fields.map((f) => [f.pdfMeta.originalName, text('x')]));
    const outside = async (values: Record<string, FillValue>, flatten: boolean) =>
      (await fillPdf(bytes, analysis, { values, flatten }, 'outside-boxes', cache)).warnings.filter((w) =>
        w.includes('outside'),
      );
    const warning = (name: string) =>
      `field "${name}" lies outside its page's visible area (MediaBox/CropBox); its value is stored but never shown`;
    // the first render meets cropped only; the later ones meet it again, and offPage for the first time
    expect(await outside({ cropped: text('a'), inside: text('b') }, true)).toEqual([warning('cropped')]);
    expect(await outside(all, false)).toEqual([warning('cropped'), warning('offPage')]);
    expect(await outside(all, true)).toEqual([warning('cropped'), warning('offPage')]);
    // a cleared value is not shown anywhere: nothing to warn about
    expect(await outside({ cropped: { kind: 'clear' }, offPage: text('c') }, true)).toEqual([warning('offPage')]);
  });
});
