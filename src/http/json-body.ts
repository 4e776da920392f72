import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../errors.js';
import { decodeUtf8 } from '../lib/utf8.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The JSON body's bytes as received, for idempotency hashing and the price of unpaid work: bytes outside V8's heap, not a second copy
     * of the text, which a long render would promote to the old generation with every large value in it.
     */
    rawBody?: Buffer;
  }
}

// Our render data is shallow (field -> value, arrays for multi-select lists). A depth cap refuses JSON
// built to exhaust recursion in anything that walks it later (serialisers, validators, hashing).
const MAX_JSON_DEPTH = 32;

function depthExceeds(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = stringEnd(text, i + 1);
      if (i < 0) return false; // unterminated: the parser refuses it
    } else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * Index of the quote closing a string whose content starts at `from`, or -1. Jumps from quote to quote
 * (indexOf) instead of reading each character: a 300 KB value is most of a render's body.
 */
function stringEnd(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q >= 0; q = text.indexOf('"', q + 1)) {
    let backslashes = 0;
    while (q - backslashes - 1 >= from && text.charCodeAt(q - backslashes - 1) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return q;
  }
  return -1;
}

/** application/json: bounded size (bodyLimit), bounded depth, prototype-poisoning safe, raw bytes kept. */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    // before any check: a refused body is charged by its size too (http/admission.ts)
    request.rawBody = bytes;
    const text = decodeUtf8(bytes);
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
      done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(new AppError('BAD_REQUEST', 'The request body is not valid JSON'), undefined);
    }
  });
}
