import type { FastifyInstance } from 'fastify';

/**
 * Every route the app registered, as `METHOD /path/:param` (HEAD, which Fastify adds to each GET, left out),
 * read from Fastify's own route tree (printRoutes with full segments: a line's depth tells its parent).
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    prefixes.length = depth;
    const path = (prefixes[depth - 1] ?? '') + m[2];
    prefixes[depth] = path;
    for (const method of (m[3] ?? '').split(', ').filter(Boolean))
      if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes;
}
