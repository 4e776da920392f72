import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestMissing, launchChromium } from '../helpers/browser.js';
import { api, startServer, type TestServer } from '../helpers/server.js';
import { makeIdentity } from '../helpers/signing.js';

// The dashboard's Certificates page in a real browser (Debian's Chromium, driven by playwright-core)
// against a real server: a PKCS#12 made here with openssl is uploaded, listed, refused with a wrong
// password, and deleted. Screenshots go to /tmp/dash-cert-*.png (1280 and 390 px).

const missing = browserTestMissing();
const scrollWidth = (page: Page) =>
  page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

describe.skipIf(missing.length > 0)(
  `certificates page in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  { timeout: 90_000 },
  () => {
    let s: TestServer;
    let browser: Browser;
    let page: Page;
    let dir: string;
    const problems: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'formcast-dash-cert-'));
      s = await startServer('sqlite');
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
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
      rmSync(dir, { recursive: true, force: true });
    });

    it('uploads a .p12, lists it as the default, refuses a wrong password, deletes it; fits 1280 and 390 px', async () => {
      const id = makeIdentity(dir, 'dashboard');
      await page.goto(`${s.url}/app`);
      await page.getByLabel('API key').fill(s.b.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Templates' }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Certificates' }).click();
      await page.getByRole('heading', { name: 'Signing certificates', level: 1 }).waitFor();
      await page.getByText('No certificate yet').waitFor();

      // a wrong password: the API's message, nothing stored
      await page.getByLabel('PKCS#12 file').setInputFiles(id.p12File);
      await page.getByLabel('Its password').fill('wrong');
      await page.getByRole('button', { name: 'Upload certificate' }).click();
      await page.getByText('The PKCS#12 password is wrong').waitFor();
      expect((await api(s, s.b).get('/v1/signing-certificates')).json.data).toEqual([]);

      await page.getByLabel('PKCS#12 file').setInputFiles(id.p12File);
      await page.getByLabel('Its password').fill('p12-secret');
      await page.getByLabel('Name (optional)').fill('Dashboard seal');
      await page.getByRole('button', { name: 'Upload certificate' }).click();
      await page.getByRole('status').filter({ hasText: 'Stored Dashboard seal, the default' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Dashboard seal' });
      await row.getByText('default').waitFor();
      await row.getByText('CN=dashboard signer').first().waitFor();
      const stored = (await api(s, s.b).get('/v1/signing-certificates')).json.data;
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ name: 'Dashboard seal', isDefault: true });
      await row.getByText(stored[0].id).waitFor();
      await page.screenshot({ path: '/tmp/dash-cert-1280.png', fullPage: true });

      await page.setViewportSize({ width: 390, height: 844 });
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: '/tmp/dash-cert-390.png', fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      await row.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('No certificate yet').waitFor();
      expect((await api(s, s.b).get('/v1/signing-certificates')).json.data).toEqual([]);
      expect(problems).toEqual([]);
    });
  },
);

describe.skipIf(missing.length > 0)(
  `certificates page with the operator's certificate in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  { timeout: 90_000 },
  () => {
    let s: TestServer;
    let browser: Browser;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'formcast-dash-opcert-'));
      const operator = makeIdentity(dir, 'operator');
      s = await startServer('sqlite', {
        env: { SIGNING_P12_FILE: operator.p12File, SIGNING_P12_PASSWORD: 'p12-secret' },
      });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("shows the operator's certificate to an account as read-only, the default while it has none; fits 1280 and 390 px", async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.goto(`${s.url}/app`);
      await page.getByLabel('API key').fill(s.a.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Templates' }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Certificates' }).click();
      await page.getByRole('heading', { name: 'Signing certificates', level: 1 }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'crt_operator' });
      await row.getByText('CN=operator signer').first().waitFor();
      await row.getByText('operator', { exact: true }).waitFor();
      await row.getByText('default', { exact: true }).waitFor();
      await row.getByText('read-only').waitFor();
      expect(await row.getByRole('button', { name: 'Delete' }).count()).toBe(0);
      await page.getByRole('note').getByText('use it while you have no certificate of your own').waitFor();
      expect(await page.getByText('No certificate yet').count()).toBe(0);
      await page.screenshot({ path: '/tmp/dash-opcert-1280.png', fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: '/tmp/dash-opcert-390.png', fullPage: true });
      expect(problems).toEqual([]);
    });
  },
);
