import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type Tenant, type TestServer } from '../helpers/server.js';
import * as hostile from '../helpers/hostile-pdfs.js';

// Offset pages shift when a template is added between two requests (the first item of page 2 is the
// last of page 1 again). `starting_after=<last id seen>` counts the next page from that item instead.

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `stable template pages [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      beforeAll(async () => {
        s = await startServer(db.name, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }); // endpoints on 127.0.0.1
      });
      afterAll(async () => s?.close());

      const upload = async (t: Tenant, name: string) => {
        const res = await api(s, t).post('/v1/templates', uploadForm(hostile.javascriptLaden(), 'js.pdf', { name }));
        expect(res.status).toBe(201);
        return res.json.data.id as string;
      };
      const ids = (res: { json: any }) => res.json.data.map((x: { id: string }) => x.id);

      it('lists the next page after the last item seen, without repeats when a template is added', async () => {
        const t = await s.newTenant('Pro');
        const made: string[] = [];
        for (let i = 0; i < 4; i++) made.push(await upload(t, `t${i}`));
        const p1 = await api(s, t).get('/v1/templates?limit=2');
        expect(ids(p1)).toEqual([made[3], made[2]]);
        made.push(await upload(t, 'added between pages'));
        const p2 = await api(s, t).get(`/v1/templates?limit=2&starting_after=${made[2]}`);
        expect(p2.status).toBe(200);
        expect(ids(p2)).toEqual([made[1], made[0]]);
        expect(p2.json.meta).toEqual({ page: 1, limit: 2, total: 5, hasMore: false, nextCursor: null });
        // page counts from the cursor too
        const p = await api(s, t).get(`/v1/templates?limit=1&page=2&starting_after=${made[3]}`);
        expect(ids(p)).toEqual([made[1]]);
      });

      /** Every item of a list, page after page through meta.nextCursor, checking hasMore on the way. */
      const walk = async (t: Tenant, path: string, limit: number) => {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 20; pages++) {
          const sep = path.includes('?') ? '&' : '?';
          const res = await api(s, t).get(`${path}${sep}limit=${limit}${cursor ? `&starting_after=${cursor}` : ''}`);
          expect(res.status, path).toBe(200);
          const page = ids(res);
          seen.push(...page);
          expect(res.json.meta.hasMore).toBe(res.json.meta.nextCursor !== null);
          if (!res.json.meta.hasMore) return seen;
          expect(res.json.meta.nextCursor).toBe(page.at(-1));
          cursor = res.json.meta.nextCursor;
        }
        throw new Error(`${path}: no last page`);
      };

      it('walks renders, API keys and webhook endpoints by meta.nextCursor until meta.hasMore is false', async () => {
        const t = await s.newTenant('Pro');
        const template = await upload(t, 'for renders');
        const renders: string[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await api(s, t).post('/v1/renders', { templateId: template, data: {} });
          expect(res.status, JSON.stringify(res.json)).toBe(201);
          expect(res.json.data.id).toBe(res.json.data.renderId);
          renders.push(res.json.data.id);
        }
        expect(await walk(t, '/v1/renders', 2)).toEqual(renders.reverse());
        for (let i = 0; i < 3; i++) expect((await api(s, t).post('/v1/api-keys', { name: `k${i}` })).status).toBe(201);
        const keys = await walk(t, '/v1/api-keys', 2);
        expect(keys).toHaveLength(4); // the tenant's own key too
        expect(new Set(keys).size).toBe(4);
        for (let i = 0; i < 3; i++) {
          const res = await api(s, t).post('/v1/webhook-endpoints', {
            url: `https://127.0.0.1:9/hook${i}`,
            events: ['render.completed'],
          });
          expect(res.status, JSON.stringify(res.json)).toBe(201);
        }
        expect(await walk(t, '/v1/webhook-endpoints', 2)).toHaveLength(3);
        // an exact last page says there is no more
        const exact = await api(s, t).get('/v1/renders?limit=5');
        expect(exact.json.meta).toEqual({ page: 1, limit: 5, total: 5, hasMore: false, nextCursor: null });
        // a cursor must be an item of the same list
        const foreign = await api(s, t).get(`/v1/api-keys?starting_after=${renders[0]}`);
        expect(foreign.status).toBe(422);
        expect(foreign.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'starting_after' } });
      });

      it("refuses an unknown or another account's template id as cursor", async () => {
        const t = await s.newTenant('Pro');
        const other = await upload(s.b, 'not yours');
        for (const cursor of ['tpl_nope', other]) {
          const res = await api(s, t).get(`/v1/templates?starting_after=${cursor}`);
          expect(res.status).toBe(422);
          expect(res.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'starting_after' } });
        }
      });
    },
  );
}
