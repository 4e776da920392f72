import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestMissing, launchChromium, poll } from '../helpers/browser.js';
import { api, startServer, type TestServer } from '../helpers/server.js';

// The account page's render defaults in Chromium: what renders use, setting a locale and a zone,
// a refused tag shown on its box, back to the server's default. Screenshots: /tmp/dash-{1280,390}-account.png.

const missing = browserTestMissing();

describe.skipIf(missing.length > 0)(
  `account settings in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
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

    async function signedIn(width: number): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      page.on('console', (m) => {
        // 422: the refused locale; 404: the browser's own favicon request, as in dashboard.test.ts
        if (m.type() === 'error' && !/status of (404|422)/.test(m.text())) problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.goto(`${s.url}/app`);
      await page.getByLabel('API key').fill(s.a.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Templates' }).waitFor();
      return page;
    }

    it('sets the locale and time zone, refuses an unknown tag, and clears back to the server default', async () => {
      const page = await signedIn(1280);
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Render defaults' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/account');
      await page.getByText('Renders use fr-FR').waitFor();
      await page.getByText('Renders use Europe/Paris').waitFor();
      const locale = page.getByLabel('Locale');
      const zone = page.getByLabel('Time zone');
      expect(await locale.getAttribute('placeholder')).toBe('Server default (fr-FR)');
      const save = page.getByRole('button', { name: 'Save' });
      expect(await save.isDisabled()).toBe(true); // nothing changed yet

      await locale.fill('xx-!!');
      await save.click();
      await page.getByRole('alert').filter({ hasText: 'VALIDATION_ERROR' }).waitFor();
      expect(await locale.getAttribute('aria-invalid')).toBe('true');

      await locale.fill('en-GB');
      await zone.fill('America/New_York');
      await save.click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      await page.getByText('Renders use en-GB').waitFor();
      expect(await locale.getAttribute('aria-invalid')).toBeNull();
      await poll(async () => (await api(s, s.a).get('/v1/account/settings')).json.data).toMatchObject({
        locale: 'en-GB',
        timezone: 'America/New_York',
      });
      await page.screenshot({ path: '/tmp/dash-1280-account.png', fullPage: true });

      // a reload shows what is stored
      await page.reload();
      await poll(() => page.getByLabel('Locale').inputValue()).toBe('en-GB');
      await page.getByLabel('Locale').fill('');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Renders use fr-FR').waitFor();
      expect((await api(s, s.a).get('/v1/account/settings')).json.data).toMatchObject({
        locale: null,
        timezone: 'America/New_York',
      });
      await page.context().close();
    });

    it('fits a 390 px screen without sideways scrolling', async () => {
      const page = await signedIn(390);
      await page.goto(`${s.url}/app/account`);
      await page.getByRole('heading', { name: 'Render defaults' }).waitFor();
      await page.getByText('Renders use America/New_York').waitFor();
      const overflow = await page.evaluate(() => {
        const g = globalThis as any;
        return g.document.documentElement.scrollWidth - g.innerWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      const box = (await page.getByLabel('Time zone').boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await page.screenshot({ path: '/tmp/dash-390-account.png', fullPage: true });
      await page.context().close();
      expect(problems).toEqual([]);
    });
  },
);
