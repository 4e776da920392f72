import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, type TestServer } from '../helpers/server.js';

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `foundation over HTTP [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      beforeAll(async () => {
        s = await startServer(db.name);
      });
      afterAll(async () => s?.close());

      it('answers /health and /ready without a key', async () => {
        expect((await api(s).get('/health')).json).toEqual({ status: 'ok' });
        expect((await api(s).get('/ready')).json).toEqual({ status: 'ready' });
      });

      it('answers UNAUTHORIZED with WWW-Authenticate for a missing key', async () => {
        const res = await api(s).get('/v1/renders/usage');
        expect(res.status).toBe(401);
        expect(res.json.error.code).toBe('UNAUTHORIZED');
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      });

      it('answers UNAUTHORIZED for a malformed or unknown key', async () => {
        for (const header of ['Basic abc', 'Bearer', 'Bearer fc_live_nope', `Bearer ${'x'.repeat(5000)}`]) {
          const res = await api(s).get('/v1/renders/usage', { authorization: header });
          expect(res.status, header.slice(0, 20)).toBe(401);
          expect(res.json.error.code).toBe('UNAUTHORIZED');
        }
      });

      it('answers the usage object of the reference for a fresh Free account', async () => {
        const res = await api(s, s.a).get('/v1/renders/usage');
        expect(res.status).toBe(200);
        expect(res.json.data).toEqual({
          plan: 'Free',
          month: new Date().toISOString().slice(0, 7),
          renders: { used: 0, limit: 100 },
          templates: { used: 0, limit: 5 },
          apiKeys: { used: 1, limit: 2 },
          features: { webhooksEnabled: false, watermark: true, retentionDays: 7 },
        });
        const pro = await api(s, s.b).get('/v1/renders/usage');
        expect(pro.json.data.plan).toBe('Pro');
        expect(pro.json.data.renders.limit).toBe(5000);
        expect(pro.json.data.features).toEqual({ webhooksEnabled: true, watermark: false, retentionDays: 30 });
      });

      it('returns a request id on every answer and honours a sane X-Request-Id', async () => {
        const res = await api(s).get('/health', { 'x-request-id': 'abc-123' });
        expect(res.headers.get('x-request-id')).toBe('abc-123');
        const other = await api(s).get('/v1/nothing-here');
        expect(other.headers.get('x-request-id')).toMatch(/^req_/);
      });

      it('sends X-Content-Type-Options: nosniff on every answer, errors and downloads included', async () => {
        for (const res of [
          await api(s).get('/health'),
          await api(s).get('/v1/nothing-here'),
          await api(s, s.a).get('/v1/templates'),
          await api(s).get('/v1/templates'),
        ]) {
          expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        }
      });

      it('answers unknown routes with a JSON NOT_FOUND envelope', async () => {
        const res = await api(s, s.a).get('/v1/nothing-here');
        expect(res.status).toBe(404);
        expect(res.json.error.code).toBe('NOT_FOUND');
      });

      it('answers BAD_REQUEST for malformed JSON', async () => {
        const res = await api(s, s.a).post('/v1/api-keys', '{"name": ', { 'content-type': 'application/json' });
        expect(res.status).toBe(400);
        expect(res.json.error.code).toBe('BAD_REQUEST');
      });

      it('answers BAD_REQUEST for an unsupported Content-Type', async () => {
        const res = await api(s, s.a).post('/v1/api-keys', 'name=x', { 'content-type': 'text/plain' });
        expect(res.status).toBe(400);
        expect(res.json.error.code).toBe('BAD_REQUEST');
      });

      it.each([
        ['page=0', 'page'],
        ['limit=500', 'limit'],
        ['limit=abc', 'limit'],
        ['page=-1', 'page'],
        ['limit=0', 'limit'],
      ])('answers VALIDATION_ERROR with details.field for %s', async (query, field) => {
        const res = await api(s, s.a).get(`/v1/templates?${query}`);
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('VALIDATION_ERROR');
        expect(res.json.error.details.field).toBe(field);
        expect(typeof res.json.error.details.expected).toBe('string');
        expect(typeof res.json.error.details.received).toBe('string');
      });

      it('creates a key shown once, lists it without the secret, and the new key works', async () => {
        const t = await s.newTenant('Pro');
        const created = await api(s, t).post('/v1/api-keys', { name: 'ci' });
        expect(created.status).toBe(201);
        expect(created.json.data.key).toMatch(/^fc_live_[A-Za-z0-9]{32}$/);
        const list = await api(s, t).get('/v1/api-keys');
        expect(list.json.data).toHaveLength(2);
        expect(JSON.stringify(list.json)).not.toContain(created.json.data.key);
        const usage = await api(s, { ...t, key: created.json.data.key }).get('/v1/renders/usage');
        expect(usage.json.data.apiKeys.used).toBe(2);
      });

      it('answers API_KEY_LIMIT_REACHED at the plan quota, exactly under concurrency', async () => {
        const t = await s.newTenant('Free'); // 2 keys, one held
        const results = await Promise.all(
          Array.from({ length: 10 }, () => api(s, t).post('/v1/api-keys', { name: 'x' })),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(1);
        const refused = results.filter((r) => r.status === 403);
        expect(refused).toHaveLength(9);
        expect(refused[0].json.error.code).toBe('API_KEY_LIMIT_REACHED');
      });

      it('revokes a key so it answers UNAUTHORIZED at once, and frees quota', async () => {
        const t = await s.newTenant('Free');
        const second = await api(s, t).post('/v1/api-keys', { name: 'temp' });
        const del = await api(s, t).delete(`/v1/api-keys/${second.json.data.id}`);
        expect(del.status).toBe(204);
        const res = await api(s, { ...t, key: second.json.data.key }).get('/v1/renders/usage');
        expect(res.status).toBe(401);
        expect((await api(s, t).post('/v1/api-keys', { name: 'again' })).status).toBe(201);
      });

      it("answers API_KEY_NOT_FOUND when revoking another account's key, which keeps working", async () => {
        const keys = await api(s, s.b).get('/v1/api-keys');
        const bKeyId = keys.json.data[0].id;
        const res = await api(s, s.a).delete(`/v1/api-keys/${bKeyId}`);
        expect(res.status).toBe(404);
        expect((await api(s, s.b).get('/v1/renders/usage')).status).toBe(200);
      });

      it("never lists another account's keys", async () => {
        const a = await api(s, s.a).get('/v1/api-keys');
        const b = await api(s, s.b).get('/v1/api-keys');
        const aIds = new Set(a.json.data.map((k: { id: string }) => k.id));
        expect(b.json.data.some((k: { id: string }) => aIds.has(k.id))).toBe(false);
      });

      it('serves an OpenAPI 3.1 document and a docs page', async () => {
        const doc = await api(s).get('/v1/openapi.json');
        expect(doc.status).toBe(200);
        expect(doc.json.openapi).toBe('3.1.0');
        expect(Object.keys(doc.json.paths)).toEqual(
          expect.arrayContaining([
            '/v1/renders',
            '/v1/templates',
            '/v1/templates/{id}/schema',
            '/v1/renders/usage',
            '/v1/api-keys',
          ]),
        );
        expect(Object.keys(doc.json.paths['/v1/templates'].post.requestBody.content)).toEqual(['multipart/form-data']);
        const page = await fetch(`${s.url}/docs/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<html');
      });

      it('sends rate limit headers on authenticated answers', async () => {
        const res = await api(s, s.a).get('/v1/renders/usage');
        expect(res.headers.get('ratelimit-limit')).toBe('300');
        expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(300);
      });
    },
  );
}
