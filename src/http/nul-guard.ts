// NUL characters are refused everywhere a client can send text (path, query, JSON body), with a
// VALIDATION_ERROR naming the place. PostgreSQL cannot store U+0000 in text columns, SQLite and C
// libraries cut strings at it, and no name, id or form value means anything with one, so one rule
// for every backend and route beats a 500 from the database.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { nulCharacterError } from '../errors.js';

/** The path of the first string (or object key) holding U+0000, or undefined. */
function findNul(value: unknown, root: string): string | undefined {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: root }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]` });
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return path;
        stack.push({ v: child, path: path ? `${path}.${k}` : k });
      }
    }
  }
  return undefined;
}

function check(request: FastifyRequest): void {
  for (const [value, root] of [
    [request.params, ''],
    [request.query, ''],
    [request.body, ''],
  ] as const) {
    const at = findNul(value, root);
    if (at !== undefined) throw nulCharacterError(at || 'body');
  }
}

export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => check(request));
}
