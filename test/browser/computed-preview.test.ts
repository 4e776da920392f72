import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestMissing, launchChromium, poll } from '../helpers/browser.js';
import { corpusDir } from '../helpers/corpus.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

// The dashboard's live preview of a form that computes (issue 23): as one types the Luxembourg salary
// certificate's remuneration lines, the preview (rendered by the service, drawn by pdf.js in Chromium)
// shows their sum in the read-only sous-total, in the form's own format. Screenshots: /tmp/dash-calc-*.png.

const corpus = corpusDir();
const missing = browserTestMissing();
const LUX = 'luxembourg-certificat-salaire-160-2019.pdf';

describe.skipIf(missing.length > 0)(
  `computed fields in the live preview${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  () => {
    let s: TestServer;
    let browser: Browser;
    const problems: string[] = [];

    beforeAll(async () => {
      s = await startServer('sqlite');
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
    });

    async function open(width: number): Promise<Page> {
      const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.goto(`${s.url}/app`);
      await page.getByLabel('API key').fill(s.a.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Templates' }).waitFor();
      return page;
    }

    const previewText = (page: Page) =>
      page
        .locator('.textLayer')
        .allTextContents()
        .then((t) => t.join(' ').replace(/\s+/g, ' '));

    it('shows the sous-total of two typed remuneration lines, updated as one types', async () => {
      const bytes = new Uint8Array(readFileSync(path.join(corpus!, 'pdfs', LUX)));
      const created = await api(s, s.a).post('/v1/templates', uploadForm(bytes, LUX));
      expect(created.status).toBe(201);
      const id = created.json.data.id as string;
      for (const [width, name] of [
        [1280, 'desktop'],
        [390, 'phone'],
      ] as const) {
        const page = await open(width);
        await page.goto(`${s.url}/app/templates/${encodeURIComponent(id)}`);
        await page.getByRole('tab', { name: 'Try it' }).click();
        await page.getByLabel('REM1', { exact: true }).fill('1000');
        await page.getByLabel('REM2', { exact: true }).fill('234.5');
        // the lines as the form formats them, and their sum (1,234.50 in its sepStyle 2) in T.TOTREM
        await poll(() => previewText(page)).toContain('1.234,50');
        const text = await previewText(page);
        expect(text).toContain('1.000,00');
        expect(text).toContain('234,50');
        await page.getByText('Preview up to date').waitFor();
        await page.screenshot({ path: `/tmp/dash-calc-${name}.png`, fullPage: false });
        // typing on: a third line joins the sum
        await page.getByLabel('REM3', { exact: true }).fill('0.5');
        await poll(() => previewText(page)).toContain('1.235,00');
        await page.getByText('Preview up to date').waitFor();
        await page.context().close();
      }
      // previews cost nothing
      expect((await api(s, s.a).get('/v1/renders/usage')).json.data.renders.used).toBe(0);
      expect(problems).toEqual([]);
    });
  },
);
