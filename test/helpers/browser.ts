import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { DASHBOARD_DIR } from '../../src/http/dashboard.js';
import { corpusDir } from './corpus.js';

// What every dashboard test in a real browser shares: Debian's Chromium (installed by .ci/run; never
// downloaded), driven by playwright-core against a real server serving the built dist/web.

export const CHROMIUM = '/usr/bin/chromium';

/** Why a browser test cannot run here (empty when it can): the browser, the built dashboard, the corpus, and `more`. */
export function browserTestMissing(...more: (string | false)[]): string[] {
  return [
    !existsSync(CHROMIUM) && `${CHROMIUM} not found (Debian: apt-get install chromium)`,
    !existsSync(path.join(DASHBOARD_DIR, 'index.html')) && 'dist/web not built (run "npm run build")',
    !corpusDir() && 'PDF corpus not found',
    ...more,
  ].filter((m): m is string => Boolean(m));
}

/** Headless Chromium without the background traffic and features a test does not want. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Wait for a condition (never a fixed sleep), generously: the box has 2 busy cores. */
export const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 30_000, interval: 100 });
