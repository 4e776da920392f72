import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { componentValidator } from '../helpers/openapi-ajv.js';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../src/modules/events/event-types.js';

// The committed openapi/openapi.json is what the TypeScript client is generated from and what
// `npm run lint:openapi` (redocly, every rule an error) checks: it must be exactly what the server
// serves, so it cannot drift from the routes. After changing a route: `npm run openapi`.

const committed = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: { $ref?: string } }> }>;
};
const operations = (doc: any): [string, Operation][] =>
  Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );

describe('the OpenAPI document', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite');
  });
  afterAll(async () => s?.close());

  it('served at /v1/openapi.json equals the committed openapi/openapi.json (run `npm run openapi` when not)', async () => {
    const res = await fetch(`${s.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const served: any = await res.json();
    // a server names itself; the committed document names the server by a variable (self-hosted)
    expect(served.servers).toEqual([
      { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), description: expect.any(String) },
    ]);
    expect(committed.servers[0].url).toBe('{baseUrl}');
    expect({ ...served, servers: committed.servers }).toEqual(committed);
  });

  it('gives every operation a unique camelCase operationId', () => {
    const ids = operations(committed).map(([, op]) => op.operationId);
    expect(ids.length).toBeGreaterThanOrEqual(16);
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Za-z]*$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names its resources, request and response bodies as components', () => {
    const names = Object.keys(committed.components.schemas);
    for (const name of [
      'Error',
      'ErrorCode',
      'PageMeta',
      'Template',
      'TemplateSchema',
      'SchemaField',
      'TemplatePatch',
      'TemplateUpload',
      'Render',
      'RenderDetail',
      'RenderListItem',
      'RenderList',
      'RenderRequest',
      'RenderOptions',
      'Usage',
      'ApiKey',
      'ApiKeyCreated',
    ])
      expect(names).toContain(name);
    for (const [name, op] of operations(committed)) {
      for (const media of Object.values(op.requestBody?.content ?? {}))
        expect(media.schema.$ref, `${name} request body`).toMatch(/^#\/components\/schemas\//);
      for (const [status, response] of Object.entries(op.responses)) {
        if (response.$ref) {
          expect(response.$ref).toMatch(/^#\/components\/responses\//);
          continue;
        }
        const json = response.content?.['application/json'];
        if (!json) continue; // 204, the PDF download
        if (Number(status) >= 400) expect(json.schema.$ref, `${name} ${status}`).toBe('#/components/schemas/Error');
        else expect(json.schema.$ref, `${name} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
      }
    }
  });

  it('documents 401 and 429 on every authenticated operation, with Retry-After on 429 and 503', () => {
    for (const [name, op] of operations(committed)) {
      const open = Array.isArray(op.security) && op.security.length === 0;
      if (!open) {
        expect(op.responses['401'], name).toBeDefined();
        expect(op.responses['429'], name).toBeDefined();
      }
      expect(op.responses['503'], name).toBeDefined();
    }
    for (const [name, op] of operations(committed))
      for (const [status, response] of Object.entries(op.responses) as [string, { description?: string }][])
        if (!('$ref' in response))
          expect(response.description, `${name} ${status}`).not.toMatch(/^(Default Response|The envelope .*)?$/);
    expect(committed.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
    expect(committed.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined();
  });

  it('describes every operation beyond its summary', () => {
    for (const [name, op] of operations(committed)) {
      expect(op.summary, name).toBeTruthy();
      expect(op.description, name).toBeTruthy();
      expect(op.description, name).not.toBe(op.summary);
      // a few sentences, not a restated title
      expect(op.description!.length, name).toBeGreaterThan(60);
    }
  });

  it('declares every event type the service sends under webhooks, each with a named, valid payload schema', () => {
    const types = [...EVENT_TYPES, TEST_EVENT_TYPE];
    expect(Object.keys(committed.webhooks).sort()).toEqual([...types].sort());
    expect(committed.tags.map((t: { name: string }) => t.name)).toContain('webhooks');
    const validator = componentValidator(committed);
    const ids = new Set(operations(committed).map(([, op]) => op.operationId));
    for (const type of types) {
      const op = committed.webhooks[type].post;
      expect(op.tags, type).toEqual(['webhooks']);
      expect(op.summary && op.description, type).toBeTruthy();
      expect(ids.has(op.operationId), `${type}: operationId unique`).toBe(false);
      ids.add(op.operationId);
      const media = op.requestBody.content['application/json'];
      const name = media.schema.$ref.replace('#/components/schemas/', '');
      expect(name, type).toMatch(/^[A-Z]\w+Event$/);
      const schema = committed.components.schemas[name];
      expect(schema.required, type).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(schema.properties.type.enum, type).toEqual([type]);
      // the example is a payload of that type, and another type's example is not
      const validate = validator(name);
      expect(validate(media.example), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(validate({ ...media.example, type: type === 'webhook.test' ? 'render.completed' : 'webhook.test' })).toBe(
        false,
      );
      expect(
        op.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
      ).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(Object.keys(op.responses), type).toEqual(['200']);
      expect(op.security, type).toEqual([]);
    }
  });

  it('lists every error code of the server in ErrorCode', async () => {
    const { ERROR_STATUS } = await import('../../src/errors.js');
    // written plainly as an enum (not anyOf of constants), so generators make a string union
    expect(committed.components.schemas.ErrorCode.enum.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it('documents every error code of the catalogue (meaning, status, details, what to do) in the document /docs shows', async () => {
    const { ERROR_STATUS, ERROR_DOCS } = await import('../../src/errors.js');
    const text: string = committed.info.description;
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const doc = ERROR_DOCS[code as keyof typeof ERROR_DOCS];
      for (const part of [doc.meaning, doc.details, doc.action]) expect(part.length, code).toBeGreaterThan(3);
      expect(text).toContain(`| \`${code}\` | ${status} | ${doc.meaning} |`);
    }
    // the reference UI at /docs reads the same document
    const page = await fetch(`${s.url}/docs/json`);
    if (page.status === 200)
      expect(((await page.json()) as { info: { description: string } }).info.description).toBe(text);
  });

  it('declares every tag it uses and a 500 answer on every operation', () => {
    const declared = new Set(committed.tags.map((t: { name: string }) => t.name));
    for (const [name, op] of operations(committed)) {
      for (const tag of (op as { tags?: string[] }).tags ?? []) expect(declared.has(tag), `${name} ${tag}`).toBe(true);
      expect(op.responses['500'], name).toBeDefined();
    }
  });
});
