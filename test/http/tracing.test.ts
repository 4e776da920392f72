import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
// a value that must never reach a span
const SECRET_VALUE = 'Zoë-tracing-canary-5821';

/** Spans end when the answer has gone out (onResponse), a moment after the client has it: wait for the one we need. */
async function spanOf(exporter: InMemorySpanExporter, match: (s: ReadableSpan) => boolean): Promise<ReadableSpan> {
  for (;;) {
    const found = exporter.getFinishedSpans().find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 5));
  }
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `OpenTelemetry tracing [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      const exporter = new InMemorySpanExporter();
      let s: TestServer;
      beforeAll(async () => {
        s = await startServer(db.name, { env: { OTEL_ENABLED: 'true' }, runtime: { spanExporter: exporter } });
      });
      afterAll(async () => s?.close());

      it('makes one span per request with the engine, storage and database steps inside it', async () => {
        const upload = await api(s, s.b).post(
          '/v1/templates',
          uploadForm(pdf('pdfjs-required-fields.pdf'), 'required.pdf'),
          { 'x-request-id': 'trace-upload-1' },
        );
        expect(upload.status).toBe(201);
        const templateId = upload.json.data.id;
        const fields = (await api(s, s.b).get(`/v1/templates/${templateId}/schema`)).json.data.schema.fields as {
          name: string;
          type: string;
          pdfMeta: { readOnly?: boolean };
        }[];
        const textField = fields.find((f) => f.type === 'text' && !f.pdfMeta.readOnly)!.name;
        const render = await api(s, s.b).post(
          '/v1/renders',
          { templateId, data: { [textField]: SECRET_VALUE } },
          { 'x-request-id': 'trace-render-1' },
        );
        expect(render.status).toBe(201);

        const uploadSpan = await spanOf(exporter, (x) => x.attributes['formcast.request_id'] === 'trace-upload-1');
        expect(uploadSpan.name).toBe('POST /v1/templates');
        expect(parentOf(uploadSpan)).toBeUndefined();
        expect(uploadSpan.attributes).toMatchObject({
          'http.request.method': 'POST',
          'http.route': '/v1/templates',
          'http.response.status_code': 201,
          'formcast.account_id': s.b.accountId,
        });
        const renderSpan = await spanOf(exporter, (x) => x.attributes['formcast.request_id'] === 'trace-render-1');
        expect(renderSpan.name).toBe('POST /v1/renders');
        expect(renderSpan.attributes).toMatchObject({
          'http.response.status_code': 201,
          'formcast.account_id': s.b.accountId,
        });
        expect(renderSpan.spanContext().traceId).not.toBe(uploadSpan.spanContext().traceId);

        // children end before their request's span: all are exported by now
        const spans = exporter.getFinishedSpans();
        const inTrace = (root: ReadableSpan) =>
          spans.filter((x) => x.spanContext().traceId === root.spanContext().traceId && x !== root);
        const under = (root: ReadableSpan, name: string) => inTrace(root).filter((x) => x.name === name);

        // upload: analysed by the engine, stored, recorded (auth's key lookup included)
        expect(under(uploadSpan, 'engine.analyse')).toHaveLength(1);
        expect(under(uploadSpan, 'blob.put').length).toBeGreaterThanOrEqual(1);
        expect(under(uploadSpan, 'db.query').some((x) => x.attributes['db.operation.name'] === 'INSERT')).toBe(true);

        // render: prepare and reserve steps with their queries, the fill, the stored file
        const [fill] = under(renderSpan, 'engine.fill');
        expect(fill).toBeDefined();
        expect(parentOf(fill!)).toBe(renderSpan.spanContext().spanId);
        expect(fill!.attributes['formcast.template.pages']).toBeGreaterThan(0);
        const [put] = under(renderSpan, 'blob.put');
        expect(parentOf(put!)).toBe(renderSpan.spanContext().spanId);
        expect(put!.attributes['formcast.blob.key']).toContain(s.b.accountId);
        const [reserve] = under(renderSpan, 'render.reserve');
        expect(parentOf(reserve!)).toBe(renderSpan.spanContext().spanId);
        const reserveQueries = under(renderSpan, 'db.query').filter(
          (x) => parentOf(x) === reserve!.spanContext().spanId,
        );
        expect(reserveQueries.map((x) => x.attributes['db.operation.name'])).toContain('INSERT');
        expect(reserveQueries[0]!.attributes['db.system']).toBe(db.name === 'postgres' ? 'postgresql' : 'sqlite');
        const [prepare] = under(renderSpan, 'render.prepare');
        expect(under(renderSpan, 'db.query').some((x) => parentOf(x) === prepare!.spanContext().spanId)).toBe(true);
        // every span of the trace hangs under the request's
        const ids = new Set([renderSpan, ...inTrace(renderSpan)].map((x) => x.spanContext().spanId));
        for (const x of inTrace(renderSpan)) expect(ids.has(parentOf(x)!)).toBe(true);

        // nothing secret: neither the API key nor the data
        const everything = JSON.stringify(spans.map((x) => ({ name: x.name, attributes: x.attributes })));
        expect(everything).not.toContain(s.b.key);
        expect(everything).not.toContain(SECRET_VALUE);
      });

      it("joins the caller's trace when the request carries a W3C traceparent", async () => {
        const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
        const res = await api(s).get('/health', {
          traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
          'x-request-id': 'trace-parent-1',
        });
        expect(res.status).toBe(200);
        const span = await spanOf(exporter, (x) => x.attributes['formcast.request_id'] === 'trace-parent-1');
        expect(span.spanContext().traceId).toBe(traceId);
        expect(parentOf(span)).toBe('00f067aa0ba902b7');
        expect(span.name).toBe('GET /health');
      });

      it('marks a refused request with its status and no account when the key is wrong', async () => {
        const res = await api(s, { accountId: 'none', key: 'fc_live_wrong' }).get('/v1/templates', {
          'x-request-id': 'trace-refused-1',
        });
        expect(res.status).toBe(401);
        const span = await spanOf(exporter, (x) => x.attributes['formcast.request_id'] === 'trace-refused-1');
        expect(span.attributes['http.response.status_code']).toBe(401);
        expect(span.attributes['formcast.account_id']).toBeUndefined();
        expect(JSON.stringify(span.attributes)).not.toContain('fc_live_wrong');
      });
    },
  );
}

describe.skipIf(!corpus)('OpenTelemetry tracing off (the default)', () => {
  const exporter = new InMemorySpanExporter();
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', { runtime: { spanExporter: exporter } });
  });
  afterAll(async () => s?.close());

  it('makes no spans and wraps nothing', async () => {
    expect(s.runtime.tracer.enabled).toBe(false);
    const upload = await api(s, s.b).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'));
    expect(upload.status).toBe(201);
    const render = await api(s, s.b).post('/v1/renders', { templateId: upload.json.data.id, data: {} });
    expect(render.status).toBe(201);
    await api(s).get('/health');
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
