// Request validators and response serializers are compiled on first use (src/http/lazy-schema-compilers.ts),
// so a schema that cannot compile would only fail when its route is first used. Here every one is
// compiled, and validation through the lazy validators answers as Fastify's own did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazySchemaCompilers } from '../../src/http/lazy-schema-compilers.js';
import { api, startServer, type TestServer } from '../helpers/server.js';

describe('route schemas compiled on first use', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite');
  });
  afterAll(async () => s?.close());

  it('validates and answers through them, and every route schema compiles', async () => {
    const listed = await api(s, s.a).get('/v1/templates?limit=1');
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ data: [], meta: expect.any(Object) });
    // a query string's number still coerced, its bounds still checked, with the field named
    const bad = await api(s, s.a).get('/v1/templates?limit=0');
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json)).toContain('limit');
    // a first request to a route that fails its body schema: the errors reach the answer
    const render = await api(s, s.a).post('/v1/renders', { data: {} });
    expect(render.status).toBe(422);
    expect(render.json).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    expect(JSON.stringify(render.json)).toContain('templateId');

    const compiled = s.app.compileAllSchemas();
    expect(compiled).toBeGreaterThan(100);
    expect(s.app.compileAllSchemas()).toBe(0);
    expect((await api(s, s.a).get('/v1/templates?limit=1')).json).toEqual(listed.json);
    expect((await api(s, s.a).post('/v1/renders', { data: {} })).json).toEqual(render.json);
  });

  it("checks a header schema by the header's lower-cased name, as Fastify's own compiler does", () => {
    const { compilersFactory } = lazySchemaCompilers();
    type Make = (ext: unknown, opts: unknown) => (route: unknown) => ((d: unknown) => boolean) & { errors?: unknown };
    const make = (compilersFactory.buildValidator as unknown as Make)({}, { customOptions: {} });
    const validate = make({
      schema: { type: 'object', properties: { 'X-Code': { type: 'string', maxLength: 3 } }, required: ['X-Code'] },
      method: 'GET',
      url: '/',
      httpPart: 'headers',
    });
    expect(validate({ 'x-code': 'abc' })).toBe(true);
    expect(validate({ 'x-code': 'abcd' })).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('x-code');
    expect(validate({})).toBe(false);
  });
});
