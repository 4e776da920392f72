import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic, { type FastifyStaticOptions } from '@fastify/static';
import { AppError } from '../errors.js';

/** dist/web, built by `npm run build` (web/build.mjs); the same place from src/http and dist/http. */
export const DASHBOARD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/web');

// Self only: no CDN, no inline script or style, no framing. pdf.js runs its worker from /app and loads
// fonts from bytes (FontFace), canvases hold the page images.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The web dashboard at /app: static files, and index.html for every other /app/* path without a file
 * extension (the app routes in the browser). Without a build it answers 404 with how to build it.
 */
export function dashboard(dir = DASHBOARD_DIR) {
  return async (app: FastifyInstance) => {
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('Content-Security-Policy', CSP);
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('X-Frame-Options', 'DENY');
    });
    const built = existsSync(path.join(dir, 'index.html'));
    if (built) {
      const headers: Pick<FastifyStaticOptions, 'cacheControl' | 'setHeaders'> = {
        cacheControl: false,
        setHeaders: (reply) => reply.header('Cache-Control', 'no-cache'),
      };
      // The top folder's files one route each (unknown app paths fall to the index below); each sub-folder
      // (pdf.js's ~190 cmaps and fonts) one wildcard route, so a starting server adds a few routes, not
      // hundreds (~0.1 s of CPU). A name missing there falls to the not-found handler, a 404.
      await app.register(fastifyStatic, {
        root: dir,
        prefix: '/app/',
        wildcard: false,
        index: false,
        globIgnore: ['*/**/*'],
        ...headers,
      });
      for (const entry of readdirSync(dir, { withFileTypes: true }))
        if (entry.isDirectory())
          await app.register(fastifyStatic, {
            root: path.join(dir, entry.name),
            prefix: `/app/${entry.name}/`,
            decorateReply: false,
            index: false,
            // a folder's own path and dot-files are not assets: the not-found handler's 404, not send's
            // 403 (which would surface as a 500)
            allowedPath: (pathName) => !pathName.endsWith('/'),
            dotfiles: 'ignore',
            ...headers,
          });
    }
    const index = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!built) throw new AppError('NOT_FOUND', 'The dashboard is not built; run "npm run build"');
      // a missing asset (a name with an extension) is a 404, not the page: only app paths get index.html
      if (/\.[A-Za-z0-9]+$/.test(request.url.split('?')[0]))
        throw new AppError('NOT_FOUND', 'No such file in the dashboard');
      reply.header('Cache-Control', 'no-cache');
      return reply.sendFile('index.html', dir);
    };
    app.get('/app', { schema: { hide: true } }, index);
    app.get('/app/*', { schema: { hide: true } }, index);
  };
}
