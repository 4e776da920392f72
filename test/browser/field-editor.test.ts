import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { PageViewport } from 'pdfjs-dist/types/src/display/display_utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIR } from '../../src/http/dashboard.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields, pdftotext } from '../helpers/pdf-tools.js';
import { openWithPdfjs } from '../helpers/pdfjs.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

// The dashboard's box editor ("Edit on page") in Debian's Chromium, against a real server: fields drawn,
// moved, resized and deleted with the mouse, the keyboard and touch on a corpus form, saved in one
// POST …/field-edits, then checked through the API (boxes within the tolerance a pixel means at the page's
// scale), in a real render (pdftotext, pdftk) and by eye (screenshots in /tmp/shots-dash-editor/).

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = '/tmp/shots-dash-editor';
const FORM = 'irs-fw9-2018.pdf';
const corpus = corpusDir();
const missing = [
  !existsSync(CHROMIUM) && `${CHROMIUM} not found (Debian: apt-get install chromium)`,
  !existsSync(path.join(DASHBOARD_DIR, 'index.html')) && 'dist/web not built (run "npm run build")',
  !corpus && 'PDF corpus not found',
  !hasTool('pdftk') && 'pdftk not found',
  !hasTool('pdftotext') && 'pdftotext not found',
].filter(Boolean);
/** Wait for a condition (never a fixed sleep), generously: the box has 2 busy cores. */
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 30_000, interval: 100 });
const LAUNCH = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type Rect = number[];
type Point = [number, number];

describe.skipIf(missing.length > 0)(
  `the box editor in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  () => {
    let s: TestServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let templateId: string;
    let work: string;
    /** pdf.js's viewport of each page at scale 1, computed in Node: the independent reference */
    let viewports: PageViewport[];
    /** render key of the W9 field whose PDF name ends with `f1_n[0]` */
    let keyOf: (n: number) => string;
    let rectsBefore: Map<string, Rect>;
    const problems: string[] = [];

    const schema = async () =>
      (await api(s, s.a).get(`/v1/templates/${templateId}/schema`)).json.data as {
        version: number;
        schema: { fields: { name: string; type: string; maxLength?: number; pdfMeta: { page: number; rect: Rect } }[] };
      };

    /** px per point of page `n` as shown now */
    const scaleOf = async (n: number) =>
      (await page.locator(`.edit-layer[data-page="${n}"]`).boundingBox())!.width / viewports[n - 1].width;

    /**
     * Screen positions of user-space points of page `n`, after scrolling the first into the middle of
     * the window (clear of the sticky toolbar).
     */
    const onScreen = async (n: number, points: Point[]): Promise<Point[]> => {
      const layer = page.locator(`.edit-layer[data-page="${n}"]`);
      await layer.waitFor();
      await page.locator(`.box-editor .pdf-page-canvas[data-page="${n}"] canvas`).waitFor();
      const vp = viewports[n - 1];
      let box = (await layer.boundingBox())!;
      const k = box.width / vp.width;
      const middle = page.viewportSize()!.height / 2;
      const y = box.y + vp.convertToViewportPoint(...points[0])[1] * k;
      await page.evaluate((dy) => (globalThis as any).scrollBy(0, dy), y - middle);
      box = (await layer.boundingBox())!;
      return points.map(([x, yy]) => {
        const [px, py] = vp.convertToViewportPoint(x, yy);
        return [box.x + px * k, box.y + py * k];
      });
    };
    const drag = async (from: Point, to: Point) => {
      await page.mouse.move(...from);
      await page.mouse.down();
      await page.mouse.move(...to, { steps: 8 });
      await page.mouse.up();
    };
    /** Draws a new field with `tool` from the top left corner to the bottom right one (user space). */
    const draw = async (tool: string, rect: Rect) => {
      await page.getByRole('toolbar', { name: 'Field tools' }).getByRole('button', { name: tool, exact: true }).click();
      const [a, b] = await onScreen(1, [
        [rect[0], rect[3]],
        [rect[2], rect[1]],
      ]);
      await drag(a, b);
    };
    const saveButton = () => page.locator('.edit-actions button.primary');
    /** Within what a pixel means at the page's scale (and the 0.01 pt the editor rounds to). */
    const expectRect = (got: Rect, want: Rect, k: number, what: string) => {
      const tol = 1 / k + 0.02;
      for (let i = 0; i < want.length; i++)
        expect(Math.abs(got[i] - want[i]), `${what} [${got}] vs [${want}]`).toBeLessThan(tol);
    };

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      work = await mkdtemp(path.join(tmpdir(), 'formcast-editor-'));
      s = await startServer('sqlite');
      const bytes = readFileSync(path.join(corpus!, 'pdfs', FORM));
      const created = await api(s, s.a).post('/v1/templates', uploadForm(bytes, FORM));
      expect(created.status).toBe(201);
      templateId = created.json.data.id;
      const doc = await openWithPdfjs(bytes);
      viewports = [];
      for (let n = 1; n <= doc.numPages; n++) viewports.push((await doc.getPage(n)).getViewport({ scale: 1 }));
      await doc.destroy();

      const before = await schema();
      const byPdfName = (n: number) =>
        before.schema.fields.find((f: any) => f.pdfMeta.originalName.endsWith(`.f1_${n}[0]`))!;
      keyOf = (n) => byPdfName(n).name;
      rectsBefore = new Map(before.schema.fields.map((f) => [f.name, f.pdfMeta.rect]));

      browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH });
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript((key) => (globalThis as any).sessionStorage.setItem('formcast.apiKey', key), s.a.key);
      page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && !/the server responded with a status of (404|409|422)/.test(m.text()))
          problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      // Chromium's own favicon request is the one 404 the console may show; any other shows here
      page.on('response', (r) => r.status() === 404 && problems.push(`404 ${r.url()}`));
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('draws a text field, a check box and a 3-cell comb; moves, resizes, nudges and deletes fields; undoes', async () => {
      await page.goto(`${s.url}/app/templates/${templateId}`);
      await page.getByRole('tab', { name: 'Edit on page' }).click();
      await page.locator('.edit-layer[data-page="1"] .edit-box').first().waitFor();

      await draw('Text', [150, 238, 330, 254]);
      await page.getByLabel('Key').fill('ed_name');
      await page.getByLabel('Key').press('Tab');
      await page.locator('.edit-box.new[data-key="ed_name"]').waitFor();

      await draw('Check box', [420, 240, 432, 252]);
      await page.locator('.edit-box.new[data-key="checkbox_1"]').waitFor();

      await page.getByLabel('Comb cells').fill('3');
      await page.getByLabel('Comb cells').press('Tab');
      await draw('Comb', [450, 238, 520, 254]);
      const comb = page.getByRole('form', { name: 'Properties of comb_1' });
      expect(await comb.getByLabel('Comb cells').inputValue()).toBe('3');

      // a radio group drawn as one box: two buttons, then three once a third option is typed
      await draw('Radio group', [60, 100, 200, 114]);
      await poll(() => page.locator('.edit-box[data-key="radio_1"]').count()).toBe(2);
      await page.getByLabel(/^Options/).fill('Yes\nNo\nMaybe');
      await page.getByLabel(/^Options/).press('Tab');
      await poll(() => page.locator('.edit-box[data-key="radio_1"]').count()).toBe(3);

      // move f1_9 down 40 px with the mouse
      const f9 = rectsBefore.get(keyOf(9))!;
      const [c9] = await onScreen(1, [[(f9[0] + f9[2]) / 2, (f9[1] + f9[3]) / 2]]);
      await drag(c9, [c9[0], c9[1] + 40]);
      // resize f1_10 by its bottom right handle: 100 px narrower, 10 px taller
      const f10 = rectsBefore.get(keyOf(10))!;
      const [c10] = await onScreen(1, [[(f10[0] + f10[2]) / 2, (f10[1] + f10[3]) / 2]]);
      await page.mouse.click(...c10);
      const handle = (await page.locator(`.edit-box[data-key="${keyOf(10)}"] .edit-handle.se`).boundingBox())!;
      const h: Point = [handle.x + handle.width / 2, handle.y + handle.height / 2];
      await drag(h, [h[0] - 100, h[1] + 10]);
      // keyboard: f1_7 three points right, ten down
      const f7box = page.locator(`.edit-box[data-key="${keyOf(7)}"]`);
      await f7box.focus();
      for (let i = 0; i < 3; i++) await f7box.press('ArrowRight');
      await f7box.press('Shift+ArrowDown');
      // delete f1_8 with its Delete key
      const f8box = page.locator(`.edit-box[data-key="${keyOf(8)}"]`);
      await f8box.focus();
      await f8box.press('Delete');
      await page.locator(`.edit-box.deleted[data-key="${keyOf(8)}"]`).waitFor();

      // one more field, undone: the last edit only
      await draw('Signature', [60, 150, 200, 180]);
      await poll(() => saveButton().textContent()).toBe('Save 9 changes');
      await page.getByRole('button', { name: 'Undo' }).click();
      await poll(() => saveButton().textContent()).toBe('Save 8 changes');
      expect(await page.locator('.edit-box[data-key="signature_1"]').count()).toBe(0);
      // 3 new single boxes, 3 radio buttons, 3 changed, 1 deleted
      expect(await page.locator('.edit-box.pending').count()).toBe(10);
      await page.screenshot({ path: `${SHOTS}/1280-pending.png`, fullPage: false });
    });

    it('saves every pending edit in one call: the schema holds the boxes drawn, a render fills them', async () => {
      const k = await scaleOf(1);
      await saveButton().click();
      await page.getByText('Saved as version 2.').waitFor();
      await poll(() => saveButton().textContent()).toBe('No changes');
      // the page image and boxes came back from the new version
      await page.locator('.edit-box[data-key="ed_name"]:not(.pending)').waitFor();

      const after = await schema();
      expect(after.version).toBe(2);
      const field = (key: string) => after.schema.fields.find((f) => f.name === key);
      expect(field('ed_name')).toMatchObject({ type: 'text', pdfMeta: { page: 1 } });
      expectRect(field('ed_name')!.pdfMeta.rect, [150, 238, 330, 254], k, 'text');
      expect(field('checkbox_1')?.type).toBe('checkbox');
      expectRect(field('checkbox_1')!.pdfMeta.rect, [420, 240, 432, 252], k, 'check box');
      expect(field('comb_1')).toMatchObject({ type: 'text', maxLength: 3 });
      expectRect(field('comb_1')!.pdfMeta.rect, [450, 238, 520, 254], k, 'comb');
      const f9 = rectsBefore.get(keyOf(9))!;
      expectRect(field(keyOf(9))!.pdfMeta.rect, [f9[0], f9[1] - 40 / k, f9[2], f9[3] - 40 / k], k, 'moved');
      const f10 = rectsBefore.get(keyOf(10))!;
      expectRect(field(keyOf(10))!.pdfMeta.rect, [f10[0], f10[1] - 10 / k, f10[2] - 100 / k, f10[3]], k, 'resized');
      const f7 = rectsBefore.get(keyOf(7))!;
      expectRect(field(keyOf(7))!.pdfMeta.rect, [f7[0] + 3, f7[1] - 10, f7[2] + 3, f7[3] - 10], 1e9, 'nudged');
      expect(field(keyOf(8))).toBeUndefined();
      const radio = after.schema.fields.find((f) => f.name === 'radio_1') as any;
      expect(radio).toMatchObject({ type: 'radio', options: ['Yes', 'No', 'Maybe'] });
      expect(radio.pdfMeta.widgets).toHaveLength(3);
      for (const w of radio.pdfMeta.widgets) {
        expect(w.rect[0]).toBeGreaterThanOrEqual(60 - 1 / k);
        expect(w.rect[2]).toBeLessThanOrEqual(200 + 1 / k);
        expectRect([w.rect[1], w.rect[3]], [100, 114], k, 'radio button'); // the group's height
      }
      expect(after.schema.fields.length).toBe(rectsBefore.size + 4 - 1);

      // a render with values for the new fields: pdftk reads them from the form, pdftotext from the page
      const data = { ed_name: 'Ada Lovelace', checkbox_1: true, comb_1: '123', radio_1: 'No' };
      const files: Record<string, string> = {};
      for (const flatten of [false, true]) {
        const r = await api(s, s.a).post('/v1/renders', { templateId, data, options: { flatten } });
        expect(r.status, r.text).toBe(201);
        const file = path.join(work, `render-${flatten ? 'flat' : 'form'}.pdf`);
        await writeFile(file, new Uint8Array(await (await fetch(r.json.data.downloadUrl)).arrayBuffer()));
        files[flatten ? 'flat' : 'form'] = file;
      }
      const values = new Map((await pdftkFields(files.form)).map((f) => [f.name, f.values[0]]));
      expect(values.get('ed_name')).toBe('Ada Lovelace');
      expect(values.get('comb_1')).toBe('123');
      expect(values.get('checkbox_1')).not.toBe('Off');
      expect(values.get('checkbox_1')).toBeTruthy();
      expect(values.get('radio_1')).toBe('No');
      const text = await pdftotext(files.flat);
      expect(text).toContain('Ada Lovelace');
      expect(text.replace(/\s+/g, '')).toContain('123');
      execFileSync('pdftoppm', ['-r', '60', '-png', '-f', '1', '-l', '1', files.flat, `${SHOTS}/render`]);
      await page.screenshot({ path: `${SHOTS}/1280-saved.png`, fullPage: false });
    });

    it('shows each refusal by the field it names and keeps every pending edit', async () => {
      // a text box dragged past the right edge of the page, and a dropdown with an option twice
      const [start] = await onScreen(1, [[560, 720]]);
      const right = (await page.locator('.edit-layer[data-page="1"]').boundingBox())!;
      await page
        .getByRole('toolbar', { name: 'Field tools' })
        .getByRole('button', { name: 'Text', exact: true })
        .click();
      await drag(start, [right.x + right.width + 30, start[1] + 20]);
      await draw('Dropdown', [60, 150, 200, 166]);
      const options = page.getByLabel(/^Options/);
      await options.fill('Red\nRed');
      await options.press('Tab');
      await poll(() => saveButton().textContent()).toBe('Save 2 changes');
      await saveButton().click();

      const offPage = page.locator('[data-pending="text_1"] [data-testid="edit-error"]');
      const twice = page.locator('[data-pending="dropdown_1"] [data-testid="edit-error"]');
      await offPage.waitFor();
      expect(await offPage.textContent()).toMatch(/not inside page 1/);
      expect(await twice.textContent()).toMatch(/"Red" is listed twice/);
      expect(await page.locator('.edit-box.has-error').count()).toBe(2);
      // the selected field's own form shows its problem too, and nothing was lost or saved
      await page.getByRole('form', { name: 'Properties of dropdown_1' }).getByTestId('field-edit-error').waitFor();
      expect(await saveButton().textContent()).toBe('Save 2 changes');
      expect((await schema()).version).toBe(2);
      await page.screenshot({ path: `${SHOTS}/1280-refused.png`, fullPage: false });

      // fixing the options clears that field's problem; the other stays until saved again
      await options.fill('Red\nBlue');
      await options.press('Tab');
      await poll(() => twice.count()).toBe(0);
      expect(await offPage.count()).toBe(1);
      await page.getByRole('button', { name: 'Discard all' }).click();
      await poll(() => saveButton().textContent()).toBe('No changes');
    });

    it('is disabled, with the reason, on a frozen template', async () => {
      expect((await api(s, s.a).patch(`/v1/templates/${templateId}`, { isFrozen: true })).status).toBe(200);
      await page.reload();
      await page.getByRole('tab', { name: 'Edit on page' }).click();
      await page.getByText('This template is frozen').first().waitFor();
      expect(await page.getByRole('button', { name: 'Text', exact: true }).isDisabled()).toBe(true);
      expect(await saveButton().isDisabled()).toBe(true);
      await page.screenshot({ path: `${SHOTS}/1280-frozen.png`, fullPage: false });
      expect((await api(s, s.a).patch(`/v1/templates/${templateId}`, { isFrozen: false })).status).toBe(200);
    });

    it('works by touch at phone width (390 px): the page scales, the panel goes below', async () => {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
      await phone.addInitScript((key) => (globalThis as any).sessionStorage.setItem('formcast.apiKey', key), s.a.key);
      const desk = page;
      page = await phone.newPage();
      page.on('pageerror', (e) => problems.push(`page error (phone): ${e.message}`));
      try {
        await page.goto(`${s.url}/app/templates/${templateId}`);
        await page.getByRole('tab', { name: 'Edit on page' }).tap();
        await page.locator('.edit-layer[data-page="1"] .edit-box').first().waitFor();
        const width = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
        expect(await width()).toBeLessThanOrEqual(390);
        const pages = (await page.locator('.box-editor-pages').boundingBox())!;
        const panel = (await page.locator('.edit-panel').boundingBox())!;
        expect(pages.width).toBeLessThanOrEqual(390);
        expect(panel.y).toBeGreaterThanOrEqual(pages.y + pages.height - 1);

        // a real touch drag (Chromium's touch input, turned into pointer events by the page)
        await page.getByRole('button', { name: 'Date', exact: true }).tap();
        const k = await scaleOf(1);
        const [a, b] = await onScreen(1, [
          [440, 300],
          [540, 280],
        ]);
        const cdp = await phone.newCDPSession(page);
        const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', p?: Point) =>
          cdp.send('Input.dispatchTouchEvent', {
            type,
            touchPoints: p ? [{ x: p[0], y: p[1], id: 1 }] : [],
          });
        await touch('touchStart', a);
        for (let i = 1; i <= 6; i++)
          await touch('touchMove', [a[0] + ((b[0] - a[0]) * i) / 6, a[1] + ((b[1] - a[1]) * i) / 6]);
        await touch('touchEnd');
        await page.locator('.edit-box.new[data-key="date_1"]').waitFor();
        expect(await width()).toBeLessThanOrEqual(390);
        await page.screenshot({ path: `${SHOTS}/390-pending.png` });
        await page.locator('.edit-panel').screenshot({ path: `${SHOTS}/390-panel.png` });
        const version = (await schema()).version;
        // a click, not a tap: right after a touch drag injected through CDP, Chromium now and then delivers
        // a tap's pointer and touch events to the button but makes no click of them (seen 3 times in 8 runs)
        await page.locator('.edit-actions button.primary').click();
        await poll(() => page.locator('.edit-panel').textContent()).toContain(`Saved as version ${version + 1}.`);
        const date = (await schema()).schema.fields.find((f) => f.name === 'date_1')!;
        expect(date.type).toBe('date');
        expectRect(date.pdfMeta.rect, [440, 280, 540, 300], k, 'touch');
        await page.screenshot({ path: `${SHOTS}/390-saved.png`, fullPage: false });
      } finally {
        page = desk;
        await phone.close();
      }
    });

    it('met no console error, CSP violation or uncaught exception', () => {
      expect(problems).toEqual([]);
    });
  },
);
