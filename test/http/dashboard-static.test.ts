import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { DASHBOARD_DIR, dashboard } from '../../src/http/dashboard.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';

// The dashboard's static files at /app (built by `npm run build` into dist/web).

const built = existsSync(path.join(DASHBOARD_DIR, 'index.html'));

describe.skipIf(!built)(`the dashboard at /app${built ? '' : ' (skipped: run "npm run build" first)'}`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite');
  });
  afterAll(async () => s?.close());

  it('serves index.html at /app and for every app path, with a strict CSP', async () => {
    for (const p of ['/app', '/app/', '/app/templates', '/app/templates/tpl_123', '/app/api-keys']) {
      const res = await fetch(s.url + p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type'), p).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await res.text();
      expect(html).toContain('<script type="module" src="/app/app.js">');
      expect(html).not.toMatch(/https?:\/\//); // nothing from a CDN
    }
  });

  it('serves the bundle, the stylesheet and the pdf.js worker with script and style types', async () => {
    const js = await fetch(`${s.url}/app/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toBe('no-cache');
    expect((await js.text()).length).toBeGreaterThan(1000);
    const worker = await fetch(`${s.url}/app/pdf.worker.min.mjs`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/javascript/);
    await worker.arrayBuffer();
    const css = await fetch(`${s.url}/app/styles.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).not.toMatch(/@import|url\(\s*["']?https?:/);
    const font = await fetch(`${s.url}/app/standard_fonts/FoxitSerif.pfb`);
    expect(font.status).toBe(200);
    expect((await font.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    // a missing asset is a 404, not the app's page
    const missing = await fetch(`${s.url}/app/standard_fonts/Nope.pfb`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('NOT_FOUND');
    // a sub-folder itself is not an asset: 404, for GET and HEAD
    for (const method of ['GET', 'HEAD'])
      for (const dir of ['/app/cmaps/', '/app/standard_fonts/']) {
        const res = await fetch(s.url + dir, { method });
        expect(res.status, `${method} ${dir}`).toBe(404);
        if (method === 'GET') expect(((await res.json()) as any).error.code).toBe('NOT_FOUND');
      }
    // a sub-folder's route serves nothing outside it, however the path climbs
    for (const climb of ['/app/standard_fonts/../../../package.json', '/app/cmaps/%2e%2e/%2e%2e/%2e%2e/package.json']) {
      const res = await rawGet(s.url, climb);
      expect(res.status, climb).not.toBe(200);
      expect(res.body, climb).not.toContain('"name"');
    }
  });

  it('keeps the API answering JSON errors outside /app', async () => {
    const res = await fetch(`${s.url}/nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('NOT_FOUND');
    expect(res.headers.get('content-security-policy')).toBeNull();
  });
});

describe('the dashboard before it is built', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'formcast-web-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 404 with how to build it', async () => {
    const app = Fastify();
    registerErrorHandler(app);
    await app.register(dashboard(dir));
    const res = await app.inject({ url: '/app/templates' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toContain('npm run build');
    await app.close();
  });

  it('serves a later build without files of an earlier one', async () => {
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
    const app = Fastify();
    await app.register(dashboard(dir));
    const res = await app.inject({ url: '/app/anything' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>x</title>');
    await app.close();
  });
});

/** A GET with the path sent as written (fetch would resolve its dot segments first). */
function rawGet(base: string, pathAsIs: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { path: pathAsIs }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
