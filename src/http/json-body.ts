import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the JSON body as received, for idempotency hashing */
    rawBody?: string;
  }
}

// Our render data is shallow (field -> value, arrays for multi-select lists). A depth cap refuses JSON
// built to exhaust recursion in anything that walks it later (serialisers, validators, hashing).
const MAX_JSON_DEPTH = 32;

function depthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** application/json: bounded size (bodyLimit), bounded depth, prototype-poisoning safe, raw text kept. */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '')
      return done(
        new AppError('BAD_REQUEST', 'The request body is empty but Content-Type is application/json'),
        undefined,
      );
    if (depthExceeds(text, MAX_JSON_DEPTH))
      return done(
        new AppError('BAD_REQUEST', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    try {
      request.rawBody = text;
      done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(new AppError('BAD_REQUEST', 'The request body is not valid JSON'), undefined);
    }
  });
}
