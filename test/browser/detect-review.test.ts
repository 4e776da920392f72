import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PageViewport } from 'pdfjs-dist/types/src/display/display_utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestMissing, launchChromium, poll } from '../helpers/browser.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields, pdftotext } from '../helpers/pdf-tools.js';
import { openWithPdfjs } from '../helpers/pdfjs.js';
import { api, startServer, type TestServer } from '../helpers/server.js';

// The detection review in Debian's Chromium, against a real server: the corpus's flat Cerfa uploaded on
// the Templates screen, refused as no form, detected on the offer, reviewed in the box editor (one
// detection dropped, one fixed: moved, retyped and renamed, one missed field drawn), saved; then the
// template is checked through the API and a real render (pdftk, pdftotext) to hold exactly the reviewed
// fields. At phone width the same upload is reviewed by touch. Screenshots in /tmp/shots-detect-review/.
// Which fields the detector finds is another test's business: this one works on whatever it lists.

const SHOTS = '/tmp/shots-detect-review';
const FORM = 'negative-no-acroform-cerfa-12101-03.pdf';
const corpus = corpusDir();
const missing = browserTestMissing(
  !hasTool('pdftk') && 'pdftk not found',
  !hasTool('pdftotext') && 'pdftotext not found',
);

type Rect = number[];
interface Field {
  name: string;
  type: string;
  pdfMeta: { page: number; rect: Rect; originalName: string };
}
/** A missed check box drawn in review: the "mère" box of page 2, in PDF points. */
const MISSED: Rect = [144, 350, 156, 362];

describe.skipIf(missing.length > 0)(
  `the detection review in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  () => {
    let s: TestServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let work: string;
    let file: string;
    let viewports: PageViewport[];
    let templateId: string;
    const problems: string[] = [];

    const schemaOf = async (id: string) =>
      (await api(s, s.a).get(`/v1/templates/${id}/schema`)).json.data as {
        version: number;
        schema: { fields: Field[] };
      };
    const idFromUrl = (p: Page) => decodeURIComponent(new URL(p.url()).pathname.split('/').pop()!);
    /** Screen positions of user-space points of page `n`, after scrolling the first to mid-window. */
    const onScreen = async (p: Page, n: number, points: [number, number][]): Promise<[number, number][]> => {
      const layer = p.locator(`.edit-layer[data-page="${n}"]`);
      await layer.scrollIntoViewIfNeeded();
      const vp = viewports[n - 1];
      const middle = p.viewportSize()!.height / 2;
      let box = (await layer.boundingBox())!;
      const y0 = vp.convertToViewportPoint(...points[0])[1];
      await p.evaluate((dy) => (globalThis as any).scrollBy(0, dy), box.y + y0 * (box.width / vp.width) - middle);
      box = (await layer.boundingBox())!;
      const k = box.width / vp.width;
      return points.map(([x, y]) => {
        const [px, py] = vp.convertToViewportPoint(x, y);
        return [box.x + px * k, box.y + py * k];
      });
    };
    /** Uploads the flat form on the Templates screen and takes the detection offer. */
    const uploadWithDetection = async (p: Page, tap: boolean) => {
      await p.goto(`${s.url}/app/templates`);
      await p.setInputFiles('#upload', file);
      const offer = p.getByRole('button', { name: 'Detect fields', exact: true });
      await offer.waitFor();
      expect(await p.locator('.detect-offer').textContent()).toContain('has no form fields');
      await p.screenshot({ path: `${SHOTS}/${tap ? 390 : 1280}-offer.png` });
      await (tap ? offer.tap() : offer.click());
      await p.locator('.detect-review').waitFor({ timeout: 60_000 });
      await p.locator('.edit-box.detected').first().waitFor();
      // the page image under the boxes (drawn once the page is near the window)
      const layer = p
        .locator('.edit-box.detected')
        .first()
        .locator('xpath=ancestor::*[contains(@class,"pdf-page-canvas")]');
      await layer.scrollIntoViewIfNeeded();
      await layer.locator('canvas').waitFor();
    };

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      work = await mkdtemp(path.join(tmpdir(), 'formcast-detect-review-'));
      s = await startServer('sqlite');
      file = path.join(corpus!, 'pdfs', FORM);
      const doc = await openWithPdfjs(readFileSync(file));
      viewports = [];
      for (let n = 1; n <= doc.numPages; n++) viewports.push((await doc.getPage(n)).getViewport({ scale: 1 }));
      await doc.destroy();

      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript((key) => (globalThis as any).sessionStorage.setItem('formcast.apiKey', key), s.a.key);
      page = await context.newPage();
      page.on('console', (m) => {
        // the plain upload's refusal (422) is the expected start of the flow
        if (m.type() === 'error' && !/the server responded with a status of (404|422)/.test(m.text()))
          problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('uploads the flat Cerfa, reviews its detections (drop, fix, add) and saves exactly them', async () => {
      await uploadWithDetection(page, false);
      templateId = idFromUrl(page);
      const before = await schemaOf(templateId);
      const detected = new Map(before.schema.fields.map((f) => [f.name, f]));
      // the list names every detected field of the new version, each drawn on its page with its confidence
      const listed = await page
        .locator('.detect-item')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-detection')!));
      expect(new Set(listed)).toEqual(new Set(detected.keys()));
      expect(listed.length).toBeGreaterThanOrEqual(2);
      for (const key of listed) {
        const box = page.locator(`.edit-box.detected[data-key="${key}"]`).first();
        expect(await box.getAttribute('aria-label')).toMatch(/^Detected field .*, confidence \d+ %/);
        const low = (await page.locator(`.detect-item[data-detection="${key}"]`).getAttribute('class'))!.includes(
          'low',
        );
        expect((await box.getAttribute('class'))!.includes('low')).toBe(low);
        if (low) expect(await box.textContent()).toContain('?');
      }
      await page.screenshot({ path: `${SHOTS}/1280-review.png`, fullPage: false });

      // drop the first listed (low confidence ones come first)
      const dropped = listed[0];
      await page.getByRole('button', { name: `Drop ${dropped}`, exact: true }).click();
      expect(await page.locator(`.detect-item[data-detection="${dropped}"]`).getAttribute('class')).toContain(
        'dropped',
      );

      // fix another: select it from the list, move it 10 pt right (Shift+ArrowRight), retype, rename
      const fixed = listed.find((k) => k !== dropped && detected.get(k)!.type !== 'signature') ?? listed[1];
      const newType = detected.get(fixed)!.type === 'signature' ? 'text' : 'signature';
      await page.getByRole('button', { name: `Select ${fixed} on the page`, exact: true }).click();
      const fixedBox = page.locator(`.edit-box[data-key="${fixed}"]`).first();
      await fixedBox.focus();
      await page.keyboard.press('Shift+ArrowRight');
      expect(await page.getByTestId('detection-about').textContent()).toMatch(/Detected .*confidence/);
      const form = page.getByRole('form', { name: `Properties of ${fixed}` });
      await form.getByLabel('Type').selectOption(newType);
      const key = page.locator('.edit-form').getByLabel('Key', { exact: true });
      await key.fill('reviewed_fix');
      await key.press('Tab');
      await page.locator('.edit-box[data-key="reviewed_fix"]').first().waitFor();
      await page.locator('.edit-form').screenshot({ path: `${SHOTS}/1280-fix-form.png` });
      expect(await page.locator(`.detect-item[data-detection="${fixed}"]`).textContent()).toContain('reviewed_fix');

      // add what was missed: a check box drawn with the mouse
      await page
        .getByRole('toolbar', { name: 'Field tools' })
        .getByRole('button', { name: 'Check box', exact: true })
        .click();
      const [a, b] = await onScreen(page, 2, [
        [MISSED[0], MISSED[3]],
        [MISSED[2], MISSED[1]],
      ]);
      await page.mouse.move(...a);
      await page.mouse.down();
      await page.mouse.move(...b, { steps: 6 });
      await page.mouse.up();
      await page.locator('.edit-box.new[data-key="checkbox_1"]').waitFor();
      const k = (await page.locator('.edit-layer[data-page="2"]').boundingBox())!.width / viewports[1].width;

      // one drop, the fix as a delete and an add, the new check box: four changes, saved with "accept"
      const accept = page.getByTestId('accept-all');
      expect(await accept.textContent()).toBe('Accept the rest and save 4 changes');
      await page.locator('.detect-review').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/1280-fixed.png`, fullPage: false });
      await accept.click();
      await poll(() => page.locator('.edit-panel').textContent()).toContain(`Saved as version ${before.version + 1}.`);
      await poll(() => page.locator('.detect-review').count()).toBe(0);

      // the API: exactly the reviewed fields
      const after = await schemaOf(templateId);
      const want = new Set([...detected.keys()].filter((n) => n !== dropped && n !== fixed));
      want.add('reviewed_fix');
      want.add('checkbox_1');
      expect(new Set(after.schema.fields.map((f) => f.name))).toEqual(want);
      const byName = new Map(after.schema.fields.map((f) => [f.name, f]));
      expect(byName.get('reviewed_fix')!.type).toBe(newType);
      const was = detected.get(fixed)!.pdfMeta.rect;
      const got = byName.get('reviewed_fix')!.pdfMeta.rect;
      const shifted = [was[0] + 10, was[1], was[2] + 10, was[3]];
      for (let i = 0; i < 4; i++) expect(Math.abs(got[i] - shifted[i]), `fixed [${got}]`).toBeLessThan(0.05);
      expect(byName.get('checkbox_1')!.type).toBe('checkbox');
      expect(byName.get('checkbox_1')!.pdfMeta.page).toBe(2);
      for (let i = 0; i < 4; i++)
        expect(Math.abs(byName.get('checkbox_1')!.pdfMeta.rect[i] - MISSED[i])).toBeLessThan(1 / k + 0.02);
      for (const n of want)
        if (n !== 'reviewed_fix' && n !== 'checkbox_1') expect(byName.get(n)).toEqual(detected.get(n));

      // a real render: pdftk lists exactly these fields, pdftotext reads a value on the flattened page
      const texts = after.schema.fields.filter((f) => f.type === 'text').map((f) => f.name);
      const data: Record<string, unknown> = {
        checkbox_1: true,
        ...Object.fromEntries(texts.map((n, i) => [n, `Reviewed ${i + 1}`])),
      };
      const files: Record<string, string> = {};
      for (const flatten of [false, true]) {
        const r = await api(s, s.a).post('/v1/renders', { templateId, data, options: { flatten } });
        expect(r.status, r.text).toBe(201);
        const out = path.join(work, `render-${flatten ? 'flat' : 'form'}.pdf`);
        await writeFile(out, new Uint8Array(await (await fetch(r.json.data.downloadUrl)).arrayBuffer()));
        files[flatten ? 'flat' : 'form'] = out;
      }
      const pdftk = await pdftkFields(files.form);
      expect(new Set(pdftk.map((f) => f.name))).toEqual(
        new Set(after.schema.fields.map((f) => f.pdfMeta.originalName)),
      );
      const values = new Map(pdftk.map((f) => [f.name, f.values[0]]));
      expect(values.get('checkbox_1')).toBeTruthy();
      expect(values.get('checkbox_1')).not.toBe('Off');
      const text = await pdftotext(files.flat);
      for (const n of texts) expect(text).toContain(data[n] as string);
      execFileSync('pdftoppm', ['-r', '60', '-png', '-f', '2', '-l', '2', files.flat, `${SHOTS}/render`]);
      await page.screenshot({ path: `${SHOTS}/1280-saved.png`, fullPage: false });
    });

    it('"Detect missing fields" on the template page finds only what its fields do not cover', async () => {
      const version = (await schemaOf(templateId)).version;
      const names = new Set((await schemaOf(templateId)).schema.fields.map((f) => f.name));
      await page.getByRole('button', { name: 'Detect missing fields' }).click();
      // either a review of new detections (a new version) or a note that nothing is missing
      await poll(
        async () =>
          (await page.locator('.detect-review').count()) + (await page.locator('.detect-action [role=status]').count()),
      ).toBeGreaterThan(0);
      const after = await schemaOf(templateId);
      if ((await page.locator('.detect-review').count()) > 0) {
        expect(after.version).toBe(version + 1);
        const listed = await page
          .locator('.detect-item')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-detection')!));
        for (const k of listed) expect(names.has(k)).toBe(false);
        await page.locator('.detect-review').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/1280-detect-missing-review.png`, fullPage: false });
        expect(new Set(after.schema.fields.map((f) => f.name))).toEqual(new Set([...names, ...listed]));
        await page.getByTestId('accept-all').click();
        await poll(() => page.locator('.detect-review').count()).toBe(0);
      } else {
        expect(after.version).toBe(version);
      }
      await page.screenshot({ path: `${SHOTS}/1280-detect-missing.png`, fullPage: false });
    });

    it('reviews by touch at phone width (390 px): the list below the page, drop and accept', async () => {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
      await phone.addInitScript((key) => (globalThis as any).sessionStorage.setItem('formcast.apiKey', key), s.a.key);
      const p = await phone.newPage();
      p.on('pageerror', (e) => problems.push(`page error (phone): ${e.message}`));
      try {
        await uploadWithDetection(p, true);
        const id = idFromUrl(p);
        const before = await schemaOf(id);
        const width = () => p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
        expect(await width()).toBeLessThanOrEqual(390);
        const pages = (await p.locator('.box-editor-pages').boundingBox())!;
        const list = (await p.locator('.detect-review').boundingBox())!;
        expect(list.width).toBeLessThanOrEqual(390);
        expect(list.y).toBeGreaterThanOrEqual(pages.y + pages.height - 1);
        await p.locator('.edit-box.detected').first().scrollIntoViewIfNeeded();
        await p.screenshot({ path: `${SHOTS}/390-page.png` });
        await p.locator('.detect-review').screenshot({ path: `${SHOTS}/390-list.png` });

        const first = (await p.locator('.detect-item').first().getAttribute('data-detection'))!;
        await p.getByRole('button', { name: `Drop ${first}`, exact: true }).tap();
        expect(await p.getByTestId('accept-all').textContent()).toBe('Accept the rest and save 1 change');
        await p.getByTestId('accept-all').tap();
        await poll(() => p.locator('.detect-review').count()).toBe(0);
        const after = await schemaOf(id);
        expect(after.version).toBe(before.version + 1);
        expect(new Set(after.schema.fields.map((f) => f.name))).toEqual(
          new Set(before.schema.fields.map((f) => f.name).filter((n) => n !== first)),
        );
        expect(await width()).toBeLessThanOrEqual(390);
        await p.screenshot({ path: `${SHOTS}/390-saved.png` });
      } finally {
        await phone.close();
      }
    });

    it('met no console error or uncaught exception', () => {
      expect(problems).toEqual([]);
    });
  },
);
