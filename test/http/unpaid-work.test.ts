// Each account's budget of unpaid work (issue 27, item 3): refused uploads and previews draw from it; an
// account past it has its next requests held before their body is read, then refused with 429
// RATE_LIMITED, while another account is answered. Counted in answers and units, never in milliseconds: the
// budget refills one unit a minute, so nothing refills during a test.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainedAdmission } from '../../src/adapters/admission/chained-admission.js';
import type { UnpaidWorkBudget } from '../../src/adapters/admission/unpaid-work.js';
import { MAX_UNPAID_UNITS_PER_REQUEST, UNPAID_UNIT_BYTES } from '../../src/http/admission.js';
import { corpusDir } from '../helpers/corpus.js';
import { api, DATABASES, startServer, type Tenant, type TestServer, uploadForm } from '../helpers/server.js';

const corpus = corpusDir();
const FORM = 'pdfjs-form-example-multiselect.pdf';

/** Polls a condition the server reaches on its own (no deadline but the test's). */
async function until(what: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await what())) await new Promise((r) => setTimeout(r, 5));
}

const metrics = async (s: TestServer) => (await api(s).get('/metrics')).text;

/** The budget in front of the main-process share (both on, as by default). */
const budgetOf = (s: TestServer) => (s.runtime.admission as ChainedAdmission).first as UnpaidWorkBudget;

async function upload(s: TestServer, t: Tenant): Promise<string> {
  const bytes = readFileSync(path.join(corpus!, 'pdfs', FORM));
  const res = await api(s, t).post('/v1/templates', uploadForm(bytes, FORM));
  expect(res.status).toBe(201);
  return res.json.data.id;
}

describe.each(DATABASES.filter((d) => d.enabled && corpus))('budget of unpaid work ($label)', ({ name }) => {
  describe('refused uploads past the budget', () => {
    let s: TestServer;
    let victimTpl: string;
    beforeAll(async () => {
      s = await startServer(name, {
        env: { UNPAID_WORK_PER_MINUTE: '1', UNPAID_WORK_BURST: '2', UNPAID_WORK_WAIT_MS: '600000' },
      });
      victimTpl = await upload(s, s.b);
    });
    afterAll(async () => s?.close());

    it("holds the hammer's next request before its body is read, while another account's render is answered", async () => {
      const hammer = s.a;
      const budget = budgetOf(s);
      for (let i = 0; i < 2; i++) {
        const refused = await api(s, hammer).post('/v1/templates', uploadForm(Buffer.from('not a PDF'), 'x.pdf'));
        expect(refused.status).toBe(422);
        expect(refused.json.error.code).toBe('INVALID_PDF');
      }
      expect(await metrics(s)).toMatch(/^formcast_unpaid_work_total 2$/m);

      // its budget is spent: the next request, whatever it is, waits
      const gone = new AbortController();
      const held = fetch(`${s.url}/v1/templates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hammer.key}` },
        body: uploadForm(Buffer.from('not a PDF either'), 'y.pdf'),
        signal: gone.signal,
      }).catch((err: Error) => err.name);
      await until(() => budget.holding(hammer.accountId) === 1);

      const render = await api(s, s.b).post('/v1/renders', { templateId: victimTpl, data: {} });
      expect(render.status).toBe(201);
      expect(budget.holding(hammer.accountId)).toBe(1);
      expect(budget.holding(s.b.accountId)).toBe(0);

      // the hammer's client gives up: its place goes, no unit is spent
      gone.abort();
      expect(await held).toBe('AbortError');
      await until(async () => /^formcast_unpaid_work_held_seconds_count\{outcome="left"\} 1$/m.test(await metrics(s)));
      expect(budget.holding(hammer.accountId)).toBe(0);
      expect(await metrics(s)).toMatch(/^formcast_unpaid_work_total 2$/m);
      // counted as a request its client closed, never as a server fault
      expect(await metrics(s)).toMatch(
        /^formcast_http_requests_total\{method="POST",route="\/v1\/templates",status="499"\} 1$/m,
      );
      expect(await metrics(s)).not.toMatch(/status="500"/);
    });
  });

  describe('previews past the budget', () => {
    let s: TestServer;
    let hammerTpl: string;
    let victimTpl: string;
    beforeAll(async () => {
      s = await startServer(name, {
        env: { UNPAID_WORK_PER_MINUTE: '1', UNPAID_WORK_BURST: '1', UNPAID_WORK_WAIT_MS: '200' },
      });
      hammerTpl = await upload(s, s.a);
      victimTpl = await upload(s, s.b);
    });
    afterAll(async () => s?.close());

    it('answers 429 RATE_LIMITED with Retry-After once the hold is over, and the other account is served', async () => {
      const preview = (t: Tenant, tpl: string) => api(s, t).post(`/v1/templates/${tpl}/preview`, { data: {} });
      expect((await preview(s.a, hammerTpl)).status).toBe(200);

      const late = await preview(s.a, hammerTpl);
      expect(late.status).toBe(429);
      expect(late.json.error.code).toBe('RATE_LIMITED');
      expect(Number(late.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(late.headers.get('ratelimit-limit')).not.toBeNull();
      // every request of the account waits while it is past its budget, not only previews
      expect((await api(s, s.a).get('/v1/templates')).status).toBe(429);

      expect((await preview(s.b, victimTpl)).status).toBe(200);
      const text = await metrics(s);
      expect(text).toMatch(/^formcast_unpaid_work_held_seconds_count\{outcome="rate_limited"\} 2$/m);
      expect(text).toMatch(/^formcast_unpaid_work_total 2$/m);
    });
  });

  describe('large previews', () => {
    let s: TestServer;
    let tpl: string;
    beforeAll(async () => {
      s = await startServer(name, {
        env: {
          UNPAID_WORK_PER_MINUTE: '1',
          UNPAID_WORK_BURST: '40',
          UNPAID_WORK_WAIT_MS: '200',
          MAX_JSON_BODY_BYTES: String(1024 * 1024),
        },
      });
      tpl = await upload(s, s.a);
    });
    afterAll(async () => s?.close());

    /** A preview whose JSON body is `bytes` long (`json`, padded with whitespace); its answer read whole. */
    const previewOf = async (bytes: number, json = '{"data":{}}') => {
      const res = await fetch(`${s.url}/v1/templates/${tpl}/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.a.key}`, 'content-type': 'application/json' },
        body: json + ' '.repeat(bytes - json.length),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const charged = async (units: number) =>
      expect(await metrics(s)).toMatch(new RegExp(`^formcast_unpaid_work_total ${units}$`, 'm'));

    // the budget refills one unit a minute: nothing refills while this runs
    it('are charged one unit per 64 KiB of body started, at most 16 a request, refused ones too', async () => {
      expect(await previewOf(UNPAID_UNIT_BYTES)).toBe(200);
      await charged(1);
      expect(await previewOf(3 * UNPAID_UNIT_BYTES + 1)).toBe(200);
      await charged(5);
      expect(Math.round(budgetOf(s).level(s.a.accountId))).toBe(35);
      // 1,000,000 bytes would be 16 units: the cap
      expect(await previewOf(1_000_000)).toBe(200);
      await charged(5 + MAX_UNPAID_UNITS_PER_REQUEST);
      // refused for what it is (not JSON): charged by its size all the same (5 units)
      expect(await previewOf(300_000, '{"data":')).toBe(400);
      await charged(26);
      // over the body limit (1 MiB here): read up to the limit, charged the cap
      expect(await previewOf(2 * 1024 * 1024)).toBe(413);
      await charged(26 + MAX_UNPAID_UNITS_PER_REQUEST);
      // the budget is spent (in debt): the next request waits, then 429
      expect(await previewOf(100)).toBe(429);
    });
  });
});
