import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestMissing, launchChromium, poll } from '../helpers/browser.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { readWithPdfjs } from '../helpers/pdfjs.js';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

// The dashboard in a real browser: Debian's Chromium (installed by .ci/run; never downloaded) driven by
// playwright-core against a real server serving the built dist/web. Screenshots go to /tmp/dash-*.png.

const corpus = corpusDir();
const missing = browserTestMissing();
const FORM = 'pdfjs-form-example-multiselect.pdf';
const SECOND = 'pdfjs-required-fields.pdf';

describe.skipIf(missing.length > 0)(
  `dashboard in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  () => {
    let s: TestServer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let templateId: string;
    let downloads: string;
    const problems: string[] = [];
    const formBytes = () => readFileSync(path.join(corpus!, 'pdfs', FORM));

    beforeAll(async () => {
      s = await startServer('sqlite');
      downloads = await mkdtemp(path.join(tmpdir(), 'formcast-dl-'));
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      page = await context.newPage();
      // every console error (a CSP violation among them) and uncaught exception fails the suite at the end
      page.on('console', (m) => {
        if (m.type() === 'error' && !/the server responded with a status of (401|403|404|422)/.test(m.text()))
          problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('dialog', (d) => d.accept());
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
      if (downloads) await rm(downloads, { recursive: true, force: true });
    });

    it('signs in with an API key kept for the tab only', async () => {
      await page.goto(`${s.url}/app`);
      await page.getByLabel('API key').fill('fc_live_notarealkeynotarealkeynotareal');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();

      await page.getByLabel('API key').fill(s.a.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Templates' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/templates');
      await page.getByText('Free plan').waitFor();
      expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('formcast.apiKey'))).toBe(s.a.key);
      expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
    });

    it('uploads a corpus form through the file input and draws a box over every widget', async () => {
      await page.locator('#upload').setInputFiles(path.join(corpus!, 'pdfs', FORM));
      await page.waitForURL(/\/app\/templates\/tpl_/);
      templateId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
      await page.getByRole('heading', { name: FORM }).waitFor();
      await page.locator('.pdf-page canvas').first().waitFor();

      // pdf.js in Node, independently: the widgets of the schema's fields
      const schema = (await api(s, s.a).get(`/v1/templates/${templateId}/schema`)).json.data.schema;
      const names = new Set(schema.fields.map((f: any) => f.pdfMeta.originalName));
      const widgets = (await readWithPdfjs(formBytes())).widgets.filter((w) => names.has(w.fieldName));
      expect(widgets.length).toBe(15); // 12 fields, the radio group has 4 buttons
      await poll(() => page.locator('.field-box').count()).toBe(widgets.length);

      // each box lies where its widget is on the page (to a pixel), as pdf.js in Node places it
      const canvas = (await page.locator('.pdf-page-canvas').first().boundingBox())!;
      const doc = await getDocument({ data: new Uint8Array(formBytes()), verbosity: 0 }).promise;
      const viewport = (await doc.getPage(1)).getViewport({ scale: 1 });
      const k = canvas.width / viewport.width;
      for (const w of widgets.slice(0, 5)) {
        const [x1, y1, x2, y2] = viewport.convertToViewportRectangle(w.rect);
        const box = (await page.locator(`.field-box[data-field="${w.fieldName}"]`).first().boundingBox())!;
        expect(Math.abs(box.x - canvas.x - Math.min(x1, x2) * k), w.fieldName).toBeLessThan(1.5);
        expect(Math.abs(box.y - canvas.y - Math.min(y1, y2) * k), w.fieldName).toBeLessThan(1.5);
        expect(Math.abs(box.width - Math.abs(x2 - x1) * k), w.fieldName).toBeLessThan(1.5);
        expect(Math.abs(box.height - Math.abs(y2 - y1) * k), w.fieldName).toBeLessThan(1.5);
      }
      await doc.destroy();
    });

    it('highlights a field box while its schema entry is hovered, and the entry while the box is', async () => {
      const box = page.locator('.field-box[data-field="lastName"]');
      expect(await box.getAttribute('class')).not.toContain('active');
      await page.locator('[data-field-row="lastName"]').hover();
      await poll(() => box.getAttribute('class')).toContain('active');
      await page.locator('.field-box[data-field="country"]').hover();
      await poll(() => page.locator('[data-field-row="country"]').getAttribute('class')).toContain('active');
      await poll(() => box.getAttribute('class')).not.toContain('active');
      await page.locator('[data-field-row="lastName"]').hover();
      await page.screenshot({ path: '/tmp/dash-1280-fields.png', fullPage: true });
    });

    it('shows a live preview of the typed value, rendered by pdf.js', async () => {
      await page.getByRole('tab', { name: 'Try it' }).click();
      await page.getByLabel('firstName', { exact: true }).fill('Zoë Dashboard');
      const text = page.locator('.textLayer');
      await poll(() => text.allTextContents().then((t) => t.join(' '))).toContain('Zoë Dashboard');
      expect((await text.allTextContents()).join(' ')).toContain('PREVIEW');
      await page.getByText('Preview up to date').waitFor();
      // keyboard: Tab moves to the next field, whose box lights up while it has focus
      await page.keyboard.press('Tab');
      await poll(() => page.locator('.field-box.active').getAttribute('data-field')).toBe('lastName');
      expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe(
        await page.getByLabel('lastName', { exact: true }).getAttribute('id'),
      );
      // the preview cost nothing
      expect((await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used).toBe(0);
    });

    it('shows a warning, then in strict mode a validation error, next to its field; both clear when fixed', async () => {
      const row = page.locator('[data-field-row="firstName"]');
      // not strict: too long is cut, with the service's warning by the field
      await page.getByLabel('firstName', { exact: true }).fill('x'.repeat(41)); // maxLength 40
      await row.locator('.warning').filter({ hasText: 'maximum length of 40' }).waitFor();
      await page.getByRole('checkbox', { name: /Strict/ }).check();
      await row.getByTestId('field-error').waitFor();
      expect(await row.getByTestId('field-error').textContent()).toMatch(/firstName/);
      expect(await page.getByLabel('firstName', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      await page.getByText('Preview paused').waitFor();
      await page.screenshot({ path: '/tmp/dash-1280-error.png', fullPage: true });

      await page.getByLabel('firstName', { exact: true }).fill('Zoë Dashboard');
      await page.getByText('Preview up to date').waitFor();
      expect(await row.getByTestId('field-error').count()).toBe(0);
      expect(await row.locator('.warning').count()).toBe(0);
      await page.getByRole('checkbox', { name: /Strict/ }).uncheck();
    });

    it('renders the PDF and downloads it', async () => {
      await page.getByLabel('lastName', { exact: true }).fill('Łódź');
      await page.getByText('Preview up to date').waitFor();
      await page.screenshot({ path: '/tmp/dash-1280-try.png', fullPage: true });
      await page.getByRole('button', { name: 'Render PDF' }).click();
      const link = page.getByRole('link', { name: 'Download PDF' });
      await link.waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const file = path.join(downloads, 'render.pdf');
      await download.saveAs(file);
      const bytes = await readFile(file);
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      const text = (await readWithPdfjs(new Uint8Array(bytes), { text: true })).pageTexts.join(' ');
      expect(text).toContain('Zoë Dashboard');
      expect(text).toContain('Łódź');
      expect(text).not.toContain('PREVIEW');
      expect((await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used).toBe(1);
    });

    it('lists the render in the history, filters it and downloads it again', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Renders' }).click();
      await page.locator('tr[data-render]').first().waitFor();
      expect(await page.locator('tr[data-render]').count()).toBe(1);
      await page.getByLabel('Status').selectOption('failed');
      await page.getByText('No renders match.').waitFor();
      await page.getByLabel('Status').selectOption('completed');
      await page.getByLabel('Template').selectOption(templateId);
      await page.locator('tr[data-render]').first().waitFor();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: /^Download render/ }).click(),
      ]);
      const again = path.join(downloads, 'again.pdf');
      await download.saveAs(again);
      expect((await readWithPdfjs(new Uint8Array(await readFile(again)), { text: true })).pageTexts[0]).toContain(
        'Zoë Dashboard',
      );
    });

    it('shows usage against the plan as bars', async () => {
      await page.getByRole('link', { name: 'Usage' }).click();
      const renders = page.getByRole('progressbar', { name: 'Renders this month' });
      await renders.waitFor();
      expect(await renders.getAttribute('aria-valuenow')).toBe('1');
      expect(await renders.getAttribute('aria-valuemax')).toBe('100');
      expect(await page.getByRole('progressbar', { name: 'Templates' }).getAttribute('aria-valuenow')).toBe('1');
      await page.screenshot({ path: '/tmp/dash-1280-usage.png', fullPage: true });
    });

    it('creates an API key shown once, and revokes it', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name of the new key').fill('from the dashboard');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = (await page.getByTestId('new-key').textContent())!;
      expect(secret).toMatch(/^fc_live_/);
      expect((await api(s, { ...s.a, key: secret }).get('/v1/renders/usage')).status).toBe(200);
      const row = page.locator('tr', { hasText: 'from the dashboard' });
      await row.getByRole('button', { name: 'Revoke' }).click();
      await row.getByText(/^revoked/).waitFor();
      await page.screenshot({ path: '/tmp/dash-1280-keys.png', fullPage: true });
      expect((await api(s, { ...s.a, key: secret }).get('/v1/renders/usage')).status).toBe(401);
    });

    it('says plainly when webhooks are not available', async () => {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('Webhooks are available on Pro and Business plans.').waitFor();
    });

    it('takes a form dropped on the drop zone', async () => {
      await page.getByRole('link', { name: 'Templates' }).first().click();
      const bytes = readFileSync(path.join(corpus!, 'pdfs', SECOND)).toString('base64');
      const dataTransfer = await page.evaluateHandle(
        ({ b64, name }) => {
          const g = globalThis as any;
          const bin = Uint8Array.from(g.atob(b64), (c: string) => c.charCodeAt(0));
          const dt = new g.DataTransfer();
          dt.items.add(new g.File([bin], name, { type: 'application/pdf' }));
          return dt;
        },
        { b64: bytes, name: SECOND },
      );
      await page.locator('#upload').dispatchEvent('drop', { dataTransfer });
      await page.getByRole('heading', { name: SECOND }).waitFor();
      await poll(() => page.locator('.field-box').count()).toBeGreaterThan(0);
    });

    it('is usable at phone width (390 px): no sideways scrolling, the form and preview work', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${s.url}/app/templates`);
      await page.locator('tr[data-template]').first().waitFor();
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      );
      await page.screenshot({ path: '/tmp/dash-390-templates.png', fullPage: true });

      await page.goto(`${s.url}/app/templates/${templateId}`);
      await page.locator('.field-box').first().waitFor();
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      );
      await page.screenshot({ path: '/tmp/dash-390-fields.png', fullPage: true });
      await page.getByRole('tab', { name: 'Try it' }).click();
      await page.getByLabel('firstName', { exact: true }).fill('Phone Width');
      await poll(() =>
        page
          .locator('.textLayer')
          .allTextContents()
          .then((t) => t.join(' ')),
      ).toContain('Phone Width');
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      );
      await page.screenshot({ path: '/tmp/dash-390-try.png', fullPage: true });
    });

    it('renames, freezes, replaces the file of and deletes templates', async () => {
      await page.goto(`${s.url}/app/templates/${templateId}`);
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByLabel(/^New name for/).fill('Job application');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Job application' }).waitFor();

      await page.getByRole('button', { name: 'Freeze' }).click();
      await page.getByRole('button', { name: 'Unfreeze' }).waitFor();
      expect(await page.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Rename' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Unfreeze' }).click();
      await page.getByRole('button', { name: 'Freeze' }).waitFor();

      // a new file: version 2, its own fields drawn
      await page.getByLabel(/^Replacement PDF for/).setInputFiles(path.join(corpus!, 'pdfs', SECOND));
      await page.getByText(/version 2/).waitFor();
      const fields = (await api(s, s.a).get(`/v1/templates/${templateId}/schema`)).json.data.schema.fields;
      await poll(() => page.locator('[data-field-row]').count()).toBe(fields.length);
      await poll(() => page.locator(`.field-box[data-field="${fields[0].name}"]`).count()).toBeGreaterThan(0);

      await page.getByRole('button', { name: 'Delete' }).click(); // the confirm dialog is accepted
      await page.waitForURL(/\/app\/templates$/);
      await poll(() => page.locator(`tr[data-template="${templateId}"]`).count()).toBe(0);
      expect((await api(s, s.a).get(`/v1/templates/${templateId}`)).status).toBe(404);
    });

    it('places the boxes right on rotated pages', async () => {
      const name = 'pdfbox-rotated-pages.pdf';
      const bytes = readFileSync(path.join(corpus!, 'pdfs', name));
      const created = await api(s, s.a).post('/v1/templates', uploadForm(bytes, name));
      expect(created.status).toBe(201);
      await page.goto(`${s.url}/app/templates/${created.json.data.id}`);
      const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
      const widgets = (await readWithPdfjs(bytes)).widgets;
      const schema = (await api(s, s.a).get(`/v1/templates/${created.json.data.id}/schema`)).json.data.schema;
      const nameOf = new Map<string, string>(schema.fields.map((f: any) => [f.pdfMeta.originalName, f.name]));
      await poll(() => page.locator('.field-box').count()).toBe(widgets.length);
      for (const pageNo of [1, 2]) {
        const viewport = (await doc.getPage(pageNo)).getViewport({ scale: 1 });
        const holder = page.locator(`.pdf-page-canvas[data-page="${pageNo}"]`);
        await holder.scrollIntoViewIfNeeded(); // pages are drawn once near the screen
        await holder.locator('canvas').waitFor();
        const canvas = (await holder.boundingBox())!;
        const k = canvas.width / viewport.width;
        for (const w of widgets.filter((x) => x.page === pageNo - 1)) {
          const [x1, y1, x2, y2] = viewport.convertToViewportRectangle(w.rect);
          const box = (await holder.locator(`.field-box[data-field="${nameOf.get(w.fieldName)}"]`).boundingBox())!;
          expect(Math.abs(box.x - canvas.x - Math.min(x1, x2) * k), w.fieldName).toBeLessThan(1.5);
          expect(Math.abs(box.height - Math.abs(y2 - y1) * k), w.fieldName).toBeLessThan(1.5);
        }
      }
      await doc.destroy();
      await page.locator('.pdf-page').nth(1).screenshot({ path: '/tmp/dash-1280-rotated.png' });
    });

    it('met no console error, CSP violation or uncaught exception', () => {
      expect(problems).toEqual([]);
    });
  },
);
