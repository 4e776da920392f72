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
        s = await startServer(db.name);
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
        expect(p2.json.meta).toEqual({ page: 1, limit: 2, total: 5 });
        // page counts from the cursor too
        const p = await api(s, t).get(`/v1/templates?limit=1&page=2&starting_after=${made[3]}`);
        expect(ids(p)).toEqual([made[1]]);
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
