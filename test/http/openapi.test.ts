import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

// The committed openapi/openapi.json is what the TypeScript client is generated from and what
// `npm run lint:openapi` (redocly, every rule an error) checks: it must be exactly what the server
// serves, so it cannot drift from the routes. After changing a route: `npm run openapi`.

const committed = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
type Operation = {
  operationId?: string;
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

  it('lists every error code of the server in ErrorCode', async () => {
    const { ERROR_STATUS } = await import('../../src/errors.js');
    expect(committed.components.schemas.ErrorCode.anyOf.map((c: { enum: string[] }) => c.enum[0]).sort()).toEqual(
      Object.keys(ERROR_STATUS).sort(),
    );
  });
});
