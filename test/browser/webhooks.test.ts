import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestMissing, launchChromium, poll } from '../helpers/browser.js';
import { api, startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// The dashboard's Webhooks page in a real browser (Debian's Chromium, driven by playwright-core) against a
// real server whose delivery worker posts to a real receiver on loopback that verifies the signatures.
// Screenshots go to /tmp/dash2-*.png.

const missing = browserTestMissing();
const scrollWidth = (page: Page) =>
  page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

/** Full-page screenshots from the top, so the sticky header is drawn where it belongs. */
const top = (page: Page) => page.evaluate(() => (globalThis as any).window.scrollTo(0, 0));

describe.skipIf(missing.length > 0)(
  `webhooks page in Chromium${missing.length ? ` (skipped: ${missing.join('; ')})` : ''}`,
  { timeout: 90_000 },
  () => {
    let s: TestServer;
    let receiver: Receiver;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let endpointId: string;
    let firstSecret: string;
    const problems: string[] = [];
    const dialogs: string[] = [];

    beforeAll(async () => {
      receiver = await startReceiver();
      // loopback receivers need WEBHOOK_ALLOW_PRIVATE; a short poll keeps the test quick (it still waits on
      // conditions, never on time)
      s = await startServer('sqlite', { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50' } });
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
      page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && !/the server responded with a status of (401|403|404|422)/.test(m.text()))
          problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        return d.accept();
      });
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
      await receiver?.close();
    });

    const signIn = async (key: string) => {
      await page.goto(`${s.url}/app`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Templates' }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    };
    const card = () => page.locator(`article[data-endpoint="${endpointId}"]`);
    const endpoint = async () => (await api(s, s.b).get(`/v1/webhook-endpoints/${endpointId}`)).json.data;

    it('on a Pro plan, creates an endpoint for chosen events and shows its secret once, with a copy button', async () => {
      await signIn(s.b.key);
      await page.getByText('No endpoints yet.').waitFor();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description (optional)').fill('Receiver on loopback');
      // the event checkboxes follow the "All events" / "Only these" choice, by keyboard too
      const completed = page.getByRole('checkbox', { name: 'render.completed' });
      expect(await completed.isDisabled()).toBe(true);
      await page.getByRole('radio', { name: 'Only these:' }).focus();
      await page.keyboard.press('Space');
      await completed.check();
      await page.getByRole('checkbox', { name: 'template.created' }).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();

      const box = page.getByRole('region', { name: /^Signing secret for/ });
      await box.waitFor();
      await box.getByText('Shown this once only.').waitFor();
      firstSecret = (await page.getByTestId('webhook-secret').textContent())!;
      expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      receiver.secrets = [firstSecret];
      // focus moved to the box, so keyboard and screen reader users land on it
      expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe('wh-secret-title');
      await box.getByRole('button', { name: 'Copy secret' }).click();
      await box.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(firstSecret);

      const list = (await api(s, s.b).get('/v1/webhook-endpoints')).json;
      expect(list.meta.total).toBe(1);
      endpointId = list.data[0].id;
      expect(list.data[0]).toMatchObject({
        url: receiver.url,
        description: 'Receiver on loopback',
        events: ['render.completed', 'template.created'],
        enabled: true,
      });
      await card().getByText('render.completed').waitFor();
      await poll(() => card().getByTestId('endpoint-state').textContent()).toBe('enabled');
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-1280-created.png', fullPage: true });
    });

    it('never shows the secret again after a reload', async () => {
      await page.reload();
      await card().waitFor();
      expect(await page.getByTestId('webhook-secret').count()).toBe(0);
      expect(await page.content()).not.toContain(firstSecret);
    });

    it('sends a test event: the receiver gets it signed, and the deliveries list shows it succeeded', async () => {
      await card().getByRole('button', { name: 'Send test event' }).click();
      await receiver.waitFor('the test event', () => receiver.received.length === 1);
      const got = receiver.received[0];
      expect(got.json).toMatchObject({ type: 'webhook.test', data: { endpointId } });
      expect(got.verifiedBy).toEqual([0]);
      // the list opened by itself and looks again until the worker's answer is recorded
      const row = card().locator('tr[data-delivery]');
      await poll(() => row.first().getAttribute('data-status')).toBe('succeeded');
      expect(await row.count()).toBe(1);
      expect(await row.getByText('HTTP 200').count()).toBe(1);
      expect(await row.locator('td[data-label="Attempts"]').textContent()).toBe('1');
      expect(await row.locator('td[data-label="Duration"]').textContent()).toMatch(/^\d+ ms$/);
      expect(await row.locator('td[data-label="Event"]').textContent()).toBe('webhook.test');
      // the exact body sent, as the receiver got it
      await row.getByRole('button', { name: /^Payload of the webhook.test delivery/ }).click();
      const shown = JSON.parse((await card().getByTestId('delivery-payload').textContent())!);
      expect(shown).toEqual(JSON.parse(got.body));
      await card()
        .getByRole('button', { name: /^Payload of/ })
        .click();
      expect(await card().getByTestId('delivery-payload').count()).toBe(0);
      // filtered by status
      await card().getByLabel('Show').selectOption('failed');
      await card().getByText('No failed deliveries.').waitFor();
      await card().getByLabel('Show').selectOption('succeeded');
      await poll(() => row.count()).toBe(1);
      await card().getByLabel('Show').selectOption('');
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-1280-delivered.png', fullPage: true });
    });

    it('retries a delivery with the same webhook-id', async () => {
      receiver.script = [500];
      await card()
        .getByRole('button', { name: /^Retry the webhook.test delivery/ })
        .click();
      await receiver.waitFor('the retried delivery', () => receiver.received.length === 2);
      expect(receiver.received[1].id).toBe(receiver.received[0].id);
      // the receiver answered 500: the delivery waits for its next attempt, shown with the answer
      const row = card().locator('tr[data-delivery]').first();
      await poll(() => row.locator('td[data-label="Last answer"]').textContent()).toContain('HTTP 500');
      expect(await row.getAttribute('data-status')).toBe('pending');
      expect(await row.locator('td[data-label="Next attempt"]').textContent()).not.toBe('—');
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-1280-retry.png', fullPage: true });
      // and a manual retry now succeeds
      await row.getByRole('button', { name: /^Retry/ }).click();
      await poll(() => row.getAttribute('data-status')).toBe('succeeded');
      expect(receiver.received.length).toBe(3);
      // each attempt, with its answer, in the delivery's attempt log
      await row.getByText('All 3 attempts').click();
      const attempts = await row.locator('.attempt-log li').allTextContents();
      expect(attempts.map((a) => /HTTP \d+/.exec(a)?.[0])).toEqual(['HTTP 200', 'HTTP 500', 'HTTP 200']);
    });

    it('rotates the secret: the new one is shown once, and the old one is said to sign for 24 hours', async () => {
      await card().getByRole('button', { name: 'Rotate secret' }).click();
      expect(dialogs.at(-1)).toMatch(/Rotate the signing secret/);
      const box = page.getByRole('region', { name: /^New signing secret for/ });
      await box.waitFor();
      await box.getByText(/previous secret keeps signing for 24 hours/).waitFor();
      const second = (await page.getByTestId('webhook-secret').textContent())!;
      expect(second).toMatch(/^whsec_/);
      expect(second).not.toBe(firstSecret);
      expect((await endpoint()).previousSecretExpiresAt).not.toBe(null);
      await card()
        .getByText(/still signs until/)
        .waitFor();
      await box.getByRole('button', { name: 'Done, hide it' }).click();
      expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    });

    it("shows the endpoint's log", async () => {
      await card().getByRole('button', { name: 'Show log' }).click();
      const log = card().getByRole('list', { name: /^Log of/ });
      await log.locator('li[data-log="secret.rotated"]').waitFor();
      await log.locator('li[data-log="created"]').waitFor();
      expect(await card().getByRole('button', { name: 'Hide log' }).getAttribute('aria-expanded')).toBe('true');
    });

    it('disables the endpoint, and enables it again', async () => {
      await card().getByRole('button', { name: 'Disable' }).click();
      await poll(() => card().getByTestId('endpoint-state').textContent()).toBe('disabled');
      expect((await endpoint()).enabled).toBe(false);
      await poll(() => card().locator('li[data-log="disabled"]').count()).toBe(1);
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-1280-disabled.png', fullPage: true });
      await card().getByRole('button', { name: 'Enable' }).click();
      await poll(() => card().getByTestId('endpoint-state').textContent()).toBe('enabled');
      expect((await endpoint()).enabled).toBe(true);
      await card().getByRole('button', { name: 'Disable' }).click();
      await poll(() => card().getByTestId('endpoint-state').textContent()).toBe('disabled');
      expect((await endpoint()).enabled).toBe(false);
    });

    it('says so when the service disabled a failing endpoint', async () => {
      // the state the delivery worker leaves after days of failures (attempt-delivery.ts), set directly:
      // waiting days of retries is the HTTP suite's job, with its injected clock
      await s.runtime.db
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_reason: 'failing' })
        .where('id', '=', endpointId)
        .execute();
      await page.reload();
      await card().getByTestId('disabled-reason').waitFor();
      expect(await card().getByTestId('disabled-reason').textContent()).toMatch(/every attempt to reach it failed/);
      expect((await endpoint()).disabledReason).toBe('failing');
    });

    it('is usable at phone width (390 px): no sideways scrolling', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await card().getByRole('button', { name: 'Show deliveries' }).click();
      await card().locator('tr[data-delivery]').first().waitFor();
      await card()
        .getByRole('button', { name: /^Payload of/ })
        .click();
      await card().getByTestId('delivery-payload').waitFor();
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-390-endpoint.png', fullPage: true });
      await page.getByRole('radio', { name: 'Only these:' }).check();
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-390-form.png', fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    it('deletes the endpoint after confirmation', async () => {
      await card().getByRole('button', { name: 'Delete' }).click();
      expect(dialogs.at(-1)).toMatch(/^Delete the webhook endpoint/);
      await page.getByText('No endpoints yet.').waitFor();
      expect((await api(s, s.b).get(`/v1/webhook-endpoints/${endpointId}`)).status).toBe(404);
    });

    it('on a Free plan says webhooks come with Pro and Business', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(s.a.key);
      const notice = page.getByTestId('webhooks-plan');
      await notice.getByText('Webhooks are available on Pro and Business plans.').waitFor();
      expect(await page.getByLabel('Endpoint URL').count()).toBe(0);
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-1280-free.png', fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
      await top(page);
      await page.screenshot({ path: '/tmp/dash2-390-free.png', fullPage: true });
    });

    it('met no console error, CSP violation or uncaught exception', () => {
      expect(problems).toEqual([]);
    });
  },
);
