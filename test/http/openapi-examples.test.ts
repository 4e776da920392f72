import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/errors.js';

// Examples in the committed openapi/openapi.json (openapi.test.ts checks it is what the server serves;
// `npm run lint:openapi` checks every example against its schema: recommended-strict makes
// no-invalid-media-type-examples and no-invalid-schema-examples errors).

type Media = { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> };
type Response = { $ref?: string; content?: Record<string, Media> };
type Operation = { requestBody?: { content: Record<string, Media> }; responses: Record<string, Response> };
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response> };
};

const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Doc;
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
);
const resolve = (r: Response): Response =>
  r.$ref ? (doc.components.responses[r.$ref.replace('#/components/responses/', '')] ?? {}) : r;
const examplesOf = (m: Media): unknown[] =>
  m.examples ? Object.values(m.examples).map((e) => e.value) : m.example !== undefined ? [m.example] : [];

describe('examples in the OpenAPI document', () => {
  it('gives every operation an example of its success answer (a JSON body; else none: 204 or a PDF)', () => {
    expect(operations.length).toBeGreaterThan(30);
    let withJson = 0;
    for (const [name, op] of operations) {
      const success = Object.entries(op.responses).filter(([status]) => status < '400');
      expect(success.length, name).toBeGreaterThan(0);
      for (const [status, response] of success) {
        for (const [type, media] of Object.entries(resolve(response).content ?? {})) {
          if (!type.includes('json')) {
            expect(type, `${name} ${status}`).toBe('application/pdf');
            continue;
          }
          withJson++;
          expect(examplesOf(media), `${name} ${status}`).not.toEqual([]);
        }
      }
    }
    expect(withJson).toBeGreaterThan(30);
  });

  it('gives every JSON request body an example', () => {
    for (const [name, op] of operations) {
      const json = op.requestBody?.content['application/json'];
      if (json) expect(examplesOf(json), name).not.toEqual([]);
    }
  });

  it('gives every error answer examples, each an error code of that HTTP status with its message', () => {
    for (const [name, op] of operations) {
      const errors = Object.entries(op.responses).filter(([status]) => status >= '400');
      expect(errors.length, name).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        const media = resolve(response).content?.['application/json'];
        const values = media ? examplesOf(media) : [];
        expect(values, `${name} ${status}`).not.toEqual([]);
        for (const value of values) {
          const { code, message } = (value as { error: { code: keyof typeof ERROR_STATUS; message: string } }).error;
          expect(String(ERROR_STATUS[code]), `${name} ${status} ${code}`).toBe(status);
          expect(message.length).toBeGreaterThan(10);
        }
      }
    }
  });

  it('shows the documented details of a validation error and the reference render request', () => {
    const create = doc.paths['/v1/renders']?.post;
    const errors = examplesOf(create!.responses['422']!.content!['application/json']!);
    expect(errors).toContainEqual({
      error: expect.objectContaining({
        code: 'VALIDATION_ERROR',
        details: expect.objectContaining({ field: expect.any(String), errors: expect.any(Array) }),
      }),
    });
    const [request] = examplesOf(create!.requestBody!.content['application/json']!);
    expect(request).toMatchObject({ templateId: expect.stringMatching(/^tpl_/), data: expect.any(Object) });
  });

  it('shows hand-written values, not placeholders, for webhooks, batches, fields and API keys', () => {
    // openapi-sampler's stand-ins when a schema has no example of its own
    const PLACEHOLDERS = ['"string"', '2019-08-24T14:15:22Z'];
    const covered = operations.filter(
      ([name]) =>
        /\/v1\/(webhook-endpoints|webhook-deliveries|renders\/batch|render-batches|api-keys|account\/settings)/.test(
          name,
        ) || /\/v1\/templates\/\{id\}\/(fields|field-edits|schema)$/.test(name),
    );
    expect(covered.length).toBeGreaterThanOrEqual(18);
    for (const [name, op] of covered) {
      const bodies = [
        ...(op.requestBody ? [op.requestBody.content['application/json']] : []),
        ...Object.entries(op.responses)
          .filter(([status]) => status < '400')
          .map(([, r]) => resolve(r).content?.['application/json']),
      ].filter((m): m is Media => m !== undefined);
      for (const media of bodies) {
        const text = JSON.stringify(examplesOf(media));
        for (const p of PLACEHOLDERS) expect(text, name).not.toContain(p);
      }
    }
  });
});
