import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { errorCatalogueMarkdown } from '../errors.js';
import { ErrorEnvelope, MULTIPART_BODY, type Named } from './openapi.js';
import { addExamples } from './openapi-examples.js';

// The OpenAPI document: @fastify/swagger builds paths from the routes' TypeBox schemas; this module adds
// what routes cannot say (servers, tags, security, the multipart upload bodies, the answers every
// authenticated operation can give) and names components after their $id. `npm run openapi` writes it
// to openapi/openapi.json, which the TypeScript client (packages/client) generates its types from.

type Operation = {
  operationId?: string;
  parameters?: { in: string; required?: boolean; schema?: { default?: unknown } }[];
  [MULTIPART_BODY]?: string;
  security?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, { description?: string; content?: unknown; $ref?: string }>;
};
type Document = {
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: unknown }>;
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown> };
};

const TAGS = [
  { name: 'templates', description: 'PDF forms (AcroForm) uploaded once, analysed into a schema of fields' },
  { name: 'renders', description: 'A template filled with JSON data: a PDF to download through a signed link' },
  { name: 'account', description: "The account's settings: the render defaults of its renders" },
  { name: 'usage', description: "The account's use of the current month against its plan" },
  { name: 'api-keys', description: 'The keys that authenticate requests (Authorization: Bearer <key>)' },
  { name: 'downloads', description: 'Signed download links; they carry their own authorisation' },
  { name: 'webhooks', description: 'Endpoints that receive signed events (Standard Webhooks) and their deliveries' },
  { name: 'signing', description: 'Certificates that sign rendered PDFs (options.sign)' },
];

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying',
  schema: { type: 'integer', minimum: 0 },
};

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/** Answers any authenticated operation can give, referenced from each one. */
const SHARED_RESPONSES = {
  Unauthorized: {
    description: 'UNAUTHORIZED: the API key is missing, malformed, unknown or revoked',
    headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } },
    content: ERROR_CONTENT,
  },
  RateLimited: {
    description:
      'RATE_LIMITED: too many requests with this key this minute (or failed authentications from this address); ' +
      'retry after Retry-After seconds',
    headers: {
      'Retry-After': RETRY_AFTER,
      'RateLimit-Limit': { description: 'Requests allowed per minute', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Requests left in this minute', schema: { type: 'integer' } },
      'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
    },
    content: ERROR_CONTENT,
  },
  InternalError: {
    description:
      'INTERNAL_ERROR: an unexpected fault; the message quotes the request id (also in X-Request-Id) to report it',
    content: ERROR_CONTENT,
  },
  ServiceUnavailable: {
    description:
      'SERVICE_UNAVAILABLE: the render workers are busy or a storage service is away; retry after Retry-After seconds',
    headers: { 'Retry-After': RETRY_AFTER },
    content: ERROR_CONTENT,
  },
};

const STATUS_TEXT: Record<string, string> = {
  '400': 'BAD_REQUEST: the request could not be read (body, Content-Type)',
  '403': 'Forbidden by a plan limit or an invalid link',
  '404': 'The resource does not exist in this account',
  '409': 'Conflicts with the resource state',
  '413': 'The body or file is larger than allowed',
  '422': 'VALIDATION_ERROR: a value is invalid; details has field, expected, received',
  '429': 'A limit was reached; see Retry-After',
};

/** Descriptions @fastify/swagger gives a response without its own (its default, the schema's). */
const GENERIC = new Set(['Default Response', ErrorEnvelope.description]);

/** One event type the service sends to webhook endpoints, and the named schema of its payload. */
export interface WebhookEventDoc {
  type: string;
  schema: Named;
  summary: string;
  description: string;
}

export async function registerOpenApi(
  app: FastifyInstance,
  publicUrl: string,
  components: Named[],
  events: WebhookEventDoc[],
): Promise<void> {
  for (const schema of components) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'formcast API',
        version: '1.0.0',
        description:
          'Fill PDF form templates with JSON data and download the result. Errors share one envelope ' +
          '(`Error`, codes below); lists are pages (`page`, `limit`, `starting_after`; `meta.total`, `meta.hasMore`, `meta.nextCursor`); POST /v1/renders and POST /v1/templates ' +
          'accept an `Idempotency-Key` header.\n\n## Error codes\n\n' +
          errorCatalogueMarkdown(),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: publicUrl, description: 'This formcast server (PUBLIC_URL)' }],
      tags: TAGS,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key, e.g. fc_live_...' } },
      },
      security: [{ bearer: [] }],
    },
    // Components keep their $id as their name (the default would be def-0, def-1, ...).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `schema-${i}`) },
    transformObject: (doc) => complete(('openapiObject' in doc ? doc.openapiObject : {}) as Document, events) as object,
  });
}

/** What the routes' schemas cannot say: upload bodies, shared answers, error descriptions. */
function complete(doc: Document, events: WebhookEventDoc[]): Document {
  doc.components ??= {};
  mapDiscriminators(doc, doc.components.schemas ?? {});
  // a copy: addExamples() writes into the document
  doc.components.responses = structuredClone(SHARED_RESPONSES);
  // @fastify/swagger marks every body required; POST /v1/api-keys also takes none (the key is "unnamed").
  const newKey = doc.paths?.['/v1/api-keys']?.post?.requestBody as { required?: boolean } | undefined;
  if (newKey) newKey.required = false;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      // Uploads are read as streams (not validated as a body): multipartBody() names their schema.
      const multipart = op[MULTIPART_BODY];
      if (multipart) {
        op.requestBody = {
          required: true,
          content: { 'multipart/form-data': { schema: { $ref: `#/components/schemas/${multipart}` } } },
        };
        delete op[MULTIPART_BODY];
      }
      // A query parameter with a default (page, limit) may be left out: Ajv fills it in.
      for (const p of op.parameters ?? []) if (p.in === 'query' && p.schema?.default !== undefined) p.required = false;
      op.responses ??= {};
      // what any body or parameter can cause: an unreadable body (400), an invalid value (422)
      if (op.requestBody) op.responses['400'] ??= { description: '', content: ERROR_CONTENT };
      if (op.requestBody || op.parameters?.length) op.responses['422'] ??= { description: '', content: ERROR_CONTENT };
      for (const [status, response] of Object.entries(op.responses)) {
        if (status >= '400' && !response.$ref && (!response.description || GENERIC.has(response.description)))
          response.description = STATUS_TEXT[status] ?? 'Error';
        // a route that answers a PDF still answers its errors as JSON (swagger gives them the route's type)
        if (status >= '400' && isJson(response.content) && !response.content['application/json'])
          response.content = ERROR_CONTENT;
      }
      const authenticated = !(Array.isArray(op.security) && op.security.length === 0);
      if (authenticated) {
        op.responses['401'] ??= { $ref: '#/components/responses/Unauthorized' };
        op.responses['429'] ??= { $ref: '#/components/responses/RateLimited' };
      }
      op.responses['500'] ??= { $ref: '#/components/responses/InternalError' };
      op.responses['503'] ??= { $ref: '#/components/responses/ServiceUnavailable' };
    }
  }
  addExamples(doc);
  doc.webhooks = Object.fromEntries(events.map((e) => [e.type, { post: webhookOperation(e) }]));
  return doc;
}

const SIGNATURE_HEADERS = [
  [
    'webhook-id',
    'The event id (`id` of the body): the same on every attempt, so deduplicate on it',
    'evt_01a21680738b60de6c07f412',
  ],
  [
    'webhook-timestamp',
    'Unix seconds of this attempt; refuse a delivery whose timestamp is far from your clock (replays)',
    '1795673700',
  ],
  [
    'webhook-signature',
    'Standard Webhooks signature: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, ' +
      "one per secret in force (two for 24 hours after a rotation); key: the endpoint's secret after `whsec_`, base64-decoded",
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ],
] as const;

/** What the service POSTs to an endpoint for one event type (a `webhooks` entry of OpenAPI 3.1). */
function webhookOperation(e: WebhookEventDoc) {
  const schema = { $ref: `#/components/schemas/${e.schema.$id}` };
  const example = (e.schema.examples as unknown[] | undefined)?.[0];
  return {
    operationId: `on${e.type.replace(/(^|[.-])(\w)/g, (_m, _sep, c: string) => c.toUpperCase())}`,
    tags: ['webhooks'],
    summary: e.summary,
    description:
      `${e.description}\n\nDelivered to every enabled endpoint subscribed to \`${e.type}\` (or \`*\`), signed per ` +
      'Standard Webhooks. Answer any 2xx within WEBHOOK_TIMEOUT_MS (10 s by default) to acknowledge; anything else ' +
      'is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 20 h and 24 h (10 attempts over about 3 days), ' +
      'with the same body and webhook-id. Redirects are not followed.',
    security: [],
    parameters: SIGNATURE_HEADERS.map(([name, description, ex]) => ({
      name,
      in: 'header',
      required: true,
      description,
      schema: { type: 'string' },
      example: ex,
    })),
    requestBody: { required: true, content: { 'application/json': { schema, ...(example ? { example } : {}) } } },
    responses: {
      '200': { description: 'Any 2xx acknowledges the delivery; the body is ignored' },
    },
  };
}

type Json = { [key: string]: unknown };
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/**
 * A discriminator's `mapping`, from the tag value each referenced branch allows: without it, OpenAPI tools
 * (openapi-typescript) take the component's name as the tag's value. The route schemas cannot carry it,
 * because Ajv refuses `mapping`.
 */
function mapDiscriminators(node: unknown, schemas: Record<string, unknown>): void {
  if (Array.isArray(node)) {
    for (const item of node) mapDiscriminators(item, schemas);
    return;
  }
  if (!isJson(node)) return;
  const d = node.discriminator;
  if (isJson(d) && typeof d.propertyName === 'string' && !d.mapping && Array.isArray(node.oneOf)) {
    const mapping: Record<string, string> = {};
    for (const branch of node.oneOf) {
      const ref = isJson(branch) && typeof branch.$ref === 'string' ? branch.$ref : '';
      const target = schemas[ref.replace('#/components/schemas/', '')];
      const tag: unknown = isJson(target) && isJson(target.properties) ? target.properties[d.propertyName] : undefined;
      const value = isJson(tag) ? (Array.isArray(tag.enum) ? tag.enum[0] : tag.const) : undefined;
      if (typeof value === 'string') mapping[value] = ref;
    }
    d.mapping = mapping;
  }
  for (const value of Object.values(node)) mapDiscriminators(value, schemas);
}
