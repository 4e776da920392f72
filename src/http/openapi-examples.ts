import { createRequire } from 'node:module';
import { ERROR_DOCS, ERROR_STATUS, type ErrorCode } from '../errors.js';

/** openapi-sampler, required when the document is first built (GET /docs/json), not with the server (~5 MB RSS). */
const sampler = () => createRequire(import.meta.url)('openapi-sampler') as typeof import('openapi-sampler');

// Examples for the OpenAPI document: every success answer gets one sampled from its schema (a property's
// own `examples`/`default`/enum first, then its type and format), every error answer one per error code its
// description names, with the code's documented meaning as the message and typical `details`.

type Json = Record<string, unknown>;
type MediaType = {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
};
type Response = { description?: string; content?: Record<string, MediaType>; $ref?: string };
type Operation = { requestBody?: { content?: Record<string, MediaType> }; responses?: Record<string, Response> };
type Document = {
  paths?: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, Response> };
};

/** The code an error answer of this status gives when its description names none. */
const GENERIC_CODE: Record<string, ErrorCode> = {
  '400': 'BAD_REQUEST',
  '401': 'UNAUTHORIZED',
  '403': 'DOWNLOAD_FORBIDDEN',
  '404': 'NOT_FOUND',
  '408': 'REQUEST_TIMEOUT',
  '409': 'CONFLICT',
  '413': 'PAYLOAD_TOO_LARGE',
  '422': 'VALIDATION_ERROR',
  '429': 'RATE_LIMITED',
  '500': 'INTERNAL_ERROR',
  '503': 'SERVICE_UNAVAILABLE',
};

/** The status of each shared answer (components.responses). */
const SHARED_STATUS: Record<string, string> = {
  Unauthorized: '401',
  RateLimited: '429',
  InternalError: '500',
  ServiceUnavailable: '503',
};

/** Typical `details` of the codes that have any (errors.ts lists them). */
const DETAILS: Partial<Record<ErrorCode, Json>> = {
  VALIDATION_ERROR: {
    field: 'amount',
    expected: 'number',
    received: 'string',
    errors: [{ field: 'amount', expected: 'number', received: 'string', message: 'amount must be a number' }],
  },
  RENDER_LIMIT_REACHED: { used: 100, limit: 100 },
  TEMPLATE_LIMIT_REACHED: { used: 3, limit: 3 },
  RENDER_FAILED: { renderId: 'rnd_01HZX3Q4TKJ8V7' },
};

const isCode = (word: string): word is ErrorCode => Object.hasOwn(ERROR_STATUS, word);

/** The error codes a response's description names (e.g. "TEMPLATE_FROZEN, or CONFLICT ..."), else the status's. */
function codesOf(status: string, description = ''): ErrorCode[] {
  const words: string[] = description.match(/\b[A-Z][A-Z_]{3,}\b/g) ?? [];
  const named = words.filter(isCode);
  const codes = [...new Set(named)].filter((c) => String(ERROR_STATUS[c]) === status);
  const generic = GENERIC_CODE[status];
  return codes.length > 0 ? codes : generic ? [generic] : [];
}

function errorExamples(status: string, response: Response): void {
  const media = response.content?.['application/json'];
  if (!media || media.examples) return;
  const examples: NonNullable<MediaType['examples']> = {};
  for (const code of codesOf(status, response.description)) {
    const details = DETAILS[code];
    examples[code] = {
      summary: code,
      value: { error: { code, message: ERROR_DOCS[code].meaning, ...(details ? { details } : {}) } },
    };
  }
  if (Object.keys(examples).length > 0) response.content = { 'application/json': { ...media, examples } };
}

/** A request shows what it needs (its required properties), an answer everything it may hold. */
function sampled(media: MediaType, doc: Document, request: boolean): void {
  if (!media.schema || media.example !== undefined || media.examples) return;
  media.example = sampler().sample(
    media.schema as object,
    { skipNonRequired: request, skipWriteOnly: true, quiet: true },
    doc,
  );
}

/** Adds the examples in place; call once the document is otherwise complete. */
export function addExamples(document: object): void {
  const doc = document as Document;
  for (const [name, response] of Object.entries(doc.components?.responses ?? {})) {
    const status = SHARED_STATUS[name];
    if (status) errorExamples(status, response);
  }
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      const json = op.requestBody?.content?.['application/json'];
      if (json) sampled(json, doc, true);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.$ref) continue;
        if (status >= '400') errorExamples(status, response);
        else
          for (const [type, media] of Object.entries(response.content ?? {}))
            if (type.includes('json')) sampled(media, doc, false);
      }
    }
  }
}
