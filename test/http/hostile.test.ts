import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import type { PoolStats } from '../../src/adapters/engine/pool-engine.js';
import * as hostile from '../helpers/hostile-pdfs.js';
import { hasTool, reachableObjects } from '../helpers/pdf-tools.js';
import { readWithPdfjs } from '../helpers/pdfjs.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fetchStatus } from '../helpers/fetch-status.js';

// Hostile input over HTTP: every attack gets its documented answer within a bounded time, the process's
// memory stays bounded, and other requests keep being served meanwhile.

const SECONDS = 1000;

describe('hostile input (SQLite + folder, render worker pool)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', { planA: 'Business' });
  });
  afterAll(async () => s?.close());

  /** Run `attack` while polling /health; return the attack's answer, its time and the slowest health answer. */
  async function whileServing<T>(attack: () => Promise<T>) {
    let slowest = 0;
    let stop = false;
    const poll = (async () => {
      while (!stop) {
        const t = performance.now();
        const res = await fetch(`${s.url}/health`);
        expect(res.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const t = performance.now();
    const result = await attack();
    const ms = performance.now() - t;
    stop = true;
    await poll;
    return { result, ms, slowestHealthMs: slowest };
  }

  const upload = (bytes: Uint8Array, name: string) => api(s, s.a).post('/v1/templates', uploadForm(bytes, name));

  it('refuses a decompression bomb with INVALID_PDF in bounded time and memory', async () => {
    const bomb = hostile.decompressionBomb(); // built before timing: deflating it blocks this process
    const rssBefore = process.memoryUsage().rss;
    const { result, ms, slowestHealthMs } = await whileServing(() => upload(bomb, 'bomb.pdf'));
    expect(result.status).toBe(422);
    expect(result.json.error.code).toBe('INVALID_PDF');
    expect(ms).toBeLessThan(30 * SECONDS);
    expect(slowestHealthMs).toBeLessThan(2 * SECONDS);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 * 1024 * 1024);
  });

  it('answers a cyclic page tree with INVALID_PDF', async () => {
    const res = await upload(hostile.cyclicPages(), 'cyclic.pdf');
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('INVALID_PDF');
  });

  it.skipIf(!hasTool('qpdf'))(
    'accepts a template full of active content, lists it in the schema, and renders without any of it',
    async () => {
      const up = await upload(hostile.activeContent(), 'active.pdf');
      expect(up.status, JSON.stringify(up.json)).toBe(201);
      const schema = await api(s, s.a).get(`/v1/templates/${up.json.data.id}/schema`);
      expect(schema.json.data.schema.removedFromOutput.map((r: { feature: string }) => r.feature)).toEqual([
        'javascript',
        'launch-actions',
        'submit-actions',
        'embedded-files',
        'uri-links',
      ]);
      const dir = mkdtempSync(path.join(tmpdir(), 'active-http-'));
      for (const flatten of [false, true]) {
        const render = await api(s, s.a).post('/v1/renders', {
          templateId: up.json.data.id,
          data: { name: 42 },
          options: { flatten },
        });
        expect(render.status, JSON.stringify(render.json)).toBe(201);
        const file = path.join(dir, `out-${flatten}.pdf`);
        writeFileSync(file, Buffer.from(await (await fetch(render.json.data.downloadUrl)).arrayBuffer()));
        expect(
          (await reachableObjects(file)).match(
            /\/(JavaScript|JS|Launch|SubmitForm|EmbeddedFiles?|FileAttachment|OpenAction|AA|URI)\b/g,
          ) ?? [],
        ).toEqual([]);
      }
    },
  );

  it.each([
    ['deeply nested arrays', hostile.deeplyNested],
    ['a cyclic field tree', hostile.cyclicFields],
    ['an xref /Prev loop', hostile.xrefLoop],
    ['a page tree claiming a billion pages', hostile.hugePageCount],
    ['20,000 pages', () => hostile.manyPages(20_000)],
    ['JavaScript actions everywhere', hostile.javascriptLaden],
  ])('answers %s with a template or INVALID_PDF, quickly, while serving others', async (_name, make) => {
    const bytes = make();
    const { result, ms, slowestHealthMs } = await whileServing(() => upload(bytes, 'hostile.pdf'));
    expect([201, 422]).toContain(result.status);
    if (result.status === 422) expect(result.json.error.code).toBe('INVALID_PDF');
    expect(ms).toBeLessThan(15 * SECONDS);
    expect(slowestHealthMs).toBeLessThan(2 * SECONDS);
    if (result.status === 201) {
      // what was accepted must also render
      const render = await api(s, s.a).post('/v1/renders', { templateId: result.json.data.id, data: {} });
      expect([201, 422]).toContain(render.status);
    }
  });

  it('cuts a 100 MB upload on a 10 MB plan with FILE_TOO_LARGE, with or without Content-Length', async () => {
    const free = await s.newTenant('Free');
    const big = new Uint8Array(100 * 1024 * 1024);
    const declared = await api(s, free).post('/v1/templates', uploadForm(big, 'big.pdf'));
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe('FILE_TOO_LARGE');

    // chunked: no Content-Length, so the limit must hold while streaming
    const boundary = 'formcastboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    );
    let sent = 0;
    const rssBefore = process.memoryUsage().rss;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= 100 * 1024 * 1024) {
          controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
          controller.close();
          return;
        }
        const chunk = new Uint8Array(1024 * 1024);
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${s.url}/v1/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${free.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit).catch((err) => err as Error);
    if (res instanceof Response) {
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).error.code).toBe('FILE_TOO_LARGE');
    }
    // loopback may deliver all 100 MB before the answer; what matters is that none of it was kept
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(60 * 1024 * 1024);
  });

  it('answers malformed multipart with BAD_REQUEST', async () => {
    const res = await api(s, s.a).post(
      '/v1/templates',
      '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc',
      { 'content-type': 'multipart/form-data; boundary=y' },
    );
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('BAD_REQUEST');
    const noBoundary = await api(s, s.a).post('/v1/templates', 'abc', { 'content-type': 'multipart/form-data' });
    expect(noBoundary.status).toBe(400);
  });

  it('answers JSON nested 10,000 deep without harm', async () => {
    const deep = `{"templateId":"tpl_x","data":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const res = await api(s, s.a).post('/v1/renders', deep);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('BAD_REQUEST');
    expect(await fetchStatus(`${s.url}/health`)).toBe(200);
    // brackets inside strings are text, whatever escapes come before the closing quote
    const inStrings = JSON.stringify({ templateId: 'tpl_x', data: { a: `\\"${'['.repeat(100)}\\`, b: '\\' } });
    const text = await api(s, s.a).post('/v1/renders', inStrings);
    expect(text.json.error.code).not.toBe('BAD_REQUEST');
    const afterEscapes = `{"templateId":"tpl_x","data":{"a":"x\\\\","b":${'['.repeat(40)}${']'.repeat(40)}}}`;
    expect(JSON.parse(afterEscapes).data.a).toBe('x\\');
    const deepAfter = await api(s, s.a).post('/v1/renders', afterEscapes);
    expect(deepAfter.status).toBe(400);
    expect(deepAfter.json.error.message).toMatch(/nested deeper than 32/);
  });

  it('answers an enormous string in data with VALIDATION_ERROR, and an oversize body with PAYLOAD_TOO_LARGE', async () => {
    const tpl = (await upload(hostile.javascriptLaden(), 'js.pdf')).json.data;
    const big = await api(s, s.a).post('/v1/renders', {
      templateId: tpl.id,
      data: { name: 'x'.repeat(4 * 1024 * 1024) },
    });
    expect(big.status).toBe(422);
    expect(big.json.error.code).toBe('VALIDATION_ERROR');
    const huge = await api(s, s.a).post('/v1/renders', {
      templateId: tpl.id,
      data: { name: 'x'.repeat(20 * 1024 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect(huge.json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

// Issue 27, item 1: a few KB of Flate over Flate that inflate to 2 GiB. Refused at upload, before any
// decoding without a ceiling; and a template stored before that check (its file swapped in storage
// here) is refused by flattened renders and previews with a typed error, without losing a worker.
for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `decompression bombs in page streams [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 120_000 },
    () => {
      let s: TestServer;
      const lost = () => {
        const l = (s.runtime.engine as unknown as { stats(): PoolStats }).stats().lost;
        return l.memory + l.timeout + l.crash;
      };
      const dispatched = () => (s.runtime.engine as unknown as { stats(): PoolStats }).stats().dispatched;
      beforeAll(async () => {
        s = await startServer(db.name, { planA: 'Business' });
      });
      afterAll(async () => s?.close());

      it.each([
        ['page content', 'page'],
        ['a form XObject the page draws', 'xobject'],
        ["a check box's appearance", 'appearance'],
      ] as const)('refuses a Flate-over-Flate bomb in %s at upload with INVALID_PDF', async (_what, where) => {
        const bomb = await hostile.nestedFlateBomb(where);
        expect(bomb.length).toBeLessThan(8 * 1024);
        const before = lost();
        const res = await api(s, s.a).post('/v1/templates', uploadForm(bomb, 'bomb.pdf'));
        expect(res.status, JSON.stringify(res.json)).toBe(422);
        expect(res.json.error.code).toBe('INVALID_PDF');
        expect(res.json.error.message).toMatch(/decodes to more than \d+ MB .*decompression bomb/);
        expect(lost()).toBe(before);
        // the same file again: the same answer, remembered by its hash, without a worker
        const jobs = dispatched();
        const again = await api(s, s.a).post('/v1/templates', uploadForm(bomb, 'again.pdf'));
        expect(again.status).toBe(422);
        expect(again.json.error).toEqual(res.json.error);
        expect(dispatched()).toBe(jobs);
      });

      it('answers flattened renders and previews of a bomb stored before the check with a typed 422, losing no worker', async () => {
        // the same form with 1 MiB of zeros is a fine template
        const up = await api(s, s.a).post(
          '/v1/templates',
          uploadForm(await hostile.nestedFlateBomb('page', 1 / 1024), 'zeros.pdf'),
        );
        expect(up.status, JSON.stringify(up.json)).toBe(201);
        const id = up.json.data.id;
        const { blob_key: key } = await s.runtime.db
          .selectFrom('templates')
          .select('blob_key')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        await s.runtime.blobs.put(key, await hostile.nestedFlateBomb('page'));
        s.runtime.caches.templateFiles.delete(key);

        const before = lost();
        let jobsFirstTime = 0;
        for (let i = 0; i < 2; i++) {
          const jobs = dispatched();
          const render = await api(s, s.a).post('/v1/renders', {
            templateId: id,
            data: { name: 'x' },
            options: { flatten: true },
          });
          // the contract's answer to a template that cannot be generated
          expect(render.status, JSON.stringify(render.json)).toBe(422);
          expect(render.json.error.code).toBe('RENDER_FAILED');
          expect(render.json.error.message).toMatch(/decompression bomb.*cannot be flattened/);
          const preview = await api(s, s.a).post(`/v1/templates/${id}/preview`, { data: { name: 'x' } });
          expect(preview.status).toBe(422);
          expect(preview.json.error.code).toBe('INVALID_PDF');
          // the first time a worker finds the bomb (once for flattening, once for the preview's watermark);
          // afterwards the refusal is remembered for this template version and no worker is spent on it
          if (i === 0) jobsFirstTime = dispatched() - jobs;
          else expect(dispatched() - jobs).toBe(0);
        }
        expect(jobsFirstTime).toBe(2);
        // an interactive render leaves the page content as it is, so it still works
        const plain = await api(s, s.a).post('/v1/renders', {
          templateId: id,
          data: { name: 'x' },
          options: { flatten: false },
        });
        expect(plain.status, JSON.stringify(plain.json)).toBe(201);
        expect(lost()).toBe(before);
      });
    },
  );
}

// Issue 27, item 2: a letter and 99,999 combining marks (300 KB of JSON) ran every text path into the
// 30 s budget. Unicode's stream-safe limit keeps 30 marks per letter in the drawing (the value itself is
// kept); its time is a `npm run bench` row, never asserted here.
describe('a value of a letter and 99,999 combining marks (SQLite + folder, render worker pool)', {
  timeout: 120_000,
}, () => {
  let s: TestServer;
  let templateId: string;
  const tower = `a${'\u0301'.repeat(99_999)}`;
  const lost = () => {
    const l = (s.runtime.engine as unknown as { stats(): PoolStats }).stats().lost;
    return l.memory + l.timeout + l.crash;
  };
  beforeAll(async () => {
    s = await startServer('sqlite', { planA: 'Business' });
    const up = await api(s, s.a).post('/v1/templates', uploadForm(hostile.lineAndMultiLineForm(), 'marks.pdf'));
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    templateId = up.json.data.id;
  });
  afterAll(async () => s?.close());

  /** The page text pdf.js reads, decomposed, and the longest run of U+0301 in it. */
  async function marksDrawn(url: string): Promise<{ text: string; longestRun: number }> {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const text = (await readWithPdfjs(bytes, { text: true })).pageTexts.join('').normalize('NFD');
    return { text, longestRun: Math.max(0, ...(text.match(/\u0301+/g) ?? []).map((r) => r.length)) };
  }

  it.each([
    ['one-line', 'one'],
    ['multi-line', 'multi'],
  ])('renders it flattened into a %s field, drawing the first 30 marks, with a warning', async (_kind, field) => {
    const before = lost();
    const res = await api(s, s.a).post('/v1/renders', {
      templateId,
      data: { [field]: tower },
      options: { flatten: true },
    });
    expect(res.status, JSON.stringify(res.json).slice(0, 500)).toBe(201);
    expect(res.json.data.warnings.join('\n')).toMatch(
      /99969 combining marks after the first 30 in a row are not drawn/,
    );
    const drawn = await marksDrawn(res.json.data.downloadUrl);
    expect(drawn.text).toContain('a\u0301');
    expect(drawn.longestRun).toBeGreaterThan(0);
    expect(drawn.longestRun).toBeLessThanOrEqual(30);
    expect(lost()).toBe(before);
  });

  it('keeps the whole value in an interactive render, and previews it', async () => {
    const before = lost();
    const res = await api(s, s.a).post('/v1/renders', {
      templateId,
      data: { one: tower, multi: tower },
      options: { flatten: false },
    });
    expect(res.status, JSON.stringify(res.json).slice(0, 500)).toBe(201);
    const bytes = new Uint8Array(await (await fetch(res.json.data.downloadUrl)).arrayBuffer());
    const { fields } = await readWithPdfjs(bytes);
    expect(fields?.one?.find((f) => f.value !== undefined)?.value).toBe(tower);
    const preview = await api(s, s.a).post(`/v1/templates/${templateId}/preview`, {
      data: { one: tower, multi: tower },
    });
    expect(preview.status, preview.text.slice(0, 500)).toBe(200);
    expect(preview.headers.get('content-type')).toMatch(/pdf/);
    expect(lost()).toBe(before);
  });
});
