// Response serializers are compiled on first use (src/http/lazy-serializers.ts), so a schema that cannot
// compile would only fail when its route first answers with that status. Here every one is compiled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../helpers/server.js';

describe('response serializers compiled on first use', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite');
  });
  afterAll(async () => s?.close());

  it('answers through them, and every route schema compiles', async () => {
    const listed = await api(s, s.a).get('/v1/templates');
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ data: [], meta: expect.any(Object) });
    // the list's serializer is compiled now; the rest (every route and status) compile without an error
    const compiled = s.app.compileAllSerializers();
    expect(compiled).toBeGreaterThan(100);
    expect(s.app.compileAllSerializers()).toBe(0);
    expect((await api(s, s.a).get('/v1/templates')).json).toEqual(listed.json);
  });
});
