import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { api, DATABASES, startServer, uploadWithTextField, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { sweepOnce } from '../../src/modules/housekeeping/sweeper.js';

// Background work makes spans too: an async render's job, a batch's items and its finishing, a webhook
// delivery, a retention sweep. Work a request enqueued carries the request's traceparent (in its
// render_jobs / render_batches / webhook_deliveries row), so its span sits in that request's trace.

const corpus = corpusDir();
const SECRET_VALUE = 'Zoë-background-canary-7340';

/** Waits for a span (the in-memory exporter gets each as it ends); the test's timeout bounds the wait. */
async function spanOf(exporter: InMemorySpanExporter, match: (s: ReadableSpan) => boolean): Promise<ReadableSpan> {
  for (;;) {
    const found = exporter.getFinishedSpans().find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
}
async function spansOf(exporter: InMemorySpanExporter, match: (s: ReadableSpan) => boolean, n: number) {
  for (;;) {
    const found = exporter.getFinishedSpans().filter(match);
    if (found.length >= n) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
}
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const traceOf = (s: ReadableSpan) => s.spanContext().traceId;
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const after = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
const traceparent = (traceId: string) => `00-${traceId}-00f067aa0ba902b7-01`;

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `tracing of background work [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    { timeout: 90_000 },
    () => {
      const exporter = new InMemorySpanExporter();
      let s: TestServer;
      let receiver: Receiver;
      let secret: string;
      let tpl: string;
      let field: string;
      beforeAll(async () => {
        s = await startServer(db.name, {
          env: { OTEL_ENABLED: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', JOB_POLL_MS: '50' },
          runtime: { spanExporter: exporter },
        });
        receiver = await startReceiver();
        const endpoint = await api(s, s.b).post('/v1/webhook-endpoints', {
          url: receiver.url,
          events: ['render.completed', 'render-batch.completed'],
        });
        expect(endpoint.status).toBe(201);
        secret = endpoint.json.data.secret;
        receiver.secrets = [secret];
        ({ tpl, field } = await uploadWithTextField(
          s,
          readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf')),
        ));
      });
      afterAll(async () => {
        await receiver?.close();
        await s?.close();
      });

      it("runs an async render's job in the accepting request's trace, and its webhook delivery under the job", async () => {
        const traceId = '0af7651916cd43dd8448eb211c80319c';
        const res = await api(s, s.b).post(
          '/v1/renders',
          { templateId: tpl, data: { [field]: SECRET_VALUE }, options: { async: true } },
          { traceparent: traceparent(traceId), 'x-request-id': 'bg-async-1' },
        );
        expect(res.status).toBe(202);
        const renderId = res.json.data.id;

        const job = await spanOf(
          exporter,
          (x) => x.name === 'render.job' && x.attributes['formcast.render_id'] === renderId,
        );
        const request = await spanOf(exporter, (x) => x.attributes['formcast.request_id'] === 'bg-async-1');
        expect(traceOf(job)).toBe(traceId);
        expect(traceOf(request)).toBe(traceId);
        // its parent is a span of the request (the request's own, or the reservation step that enqueued it)
        const requestSpans = exporter
          .getFinishedSpans()
          // hrtime pairs compared as numbers (`<=` on arrays compares their strings: '…,95000000' > '…,100000000')
          .filter((x) => traceOf(x) === traceId && !after(x.endTime, request.endTime));
        expect(requestSpans.map(idOf)).toContain(parentOf(job));
        expect(job.attributes).toMatchObject({
          'formcast.account_id': s.b.accountId,
          'formcast.job.kind': 'async',
          'formcast.job.attempt': 1,
          'formcast.job.outcome': 'completed',
        });
        // the job's own steps are its children
        const children = exporter.getFinishedSpans().filter((x) => parentOf(x) === idOf(job));
        expect(children.map((x) => x.name)).toEqual(expect.arrayContaining(['engine.fill', 'blob.put', 'db.query']));

        const delivery = await spanOf(
          exporter,
          (x) =>
            x.name === 'webhook.deliver' &&
            traceOf(x) === traceId &&
            x.attributes['formcast.event.type'] === 'render.completed',
        );
        expect(parentOf(delivery)).toBe(idOf(job));
        // the job runner's polls, woken by the request, stay out of its trace
        const late = exporter
          .getFinishedSpans()
          .filter((x) => parentOf(x) === idOf(request) && after(x.startTime, request.endTime));
        expect(late.map((x) => x.name)).toEqual([]);
        expect(delivery.attributes).toMatchObject({
          'formcast.account_id': s.b.accountId,
          'formcast.delivery.attempt': 1,
          'formcast.delivery.outcome': 'succeeded',
          'http.response.status_code': 200,
        });
        await receiver.waitFor('the render.completed delivery', () =>
          receiver.received.some((r) => r.json?.type === 'render.completed' && r.json.data.id === renderId),
        );
      });

      it("runs a batch's items and its finishing in the request's trace", async () => {
        const traceId = '5b8aa5a2d2c872e8321cf37308d69df2';
        const res = await api(s, s.b).post(
          '/v1/renders/batch',
          {
            items: [
              { templateId: tpl, data: { [field]: SECRET_VALUE } },
              { templateId: tpl, data: { [field]: 'second' } },
            ],
            combine: true,
          },
          { traceparent: traceparent(traceId), 'x-request-id': 'bg-batch-1' },
        );
        expect(res.status).toBe(202);
        const batchId = res.json.data.id;
        const items = await spansOf(
          exporter,
          (x) => x.name === 'render.job' && x.attributes['formcast.batch_id'] === batchId,
          2,
        );
        for (const item of items) {
          expect(traceOf(item)).toBe(traceId);
          expect(item.attributes['formcast.job.kind']).toBe('batch-item');
        }
        const finish = await spanOf(
          exporter,
          (x) => x.name === 'batch.finish' && x.attributes['formcast.batch_id'] === batchId,
        );
        expect(traceOf(finish)).toBe(traceId);
        expect(finish.attributes).toMatchObject({ 'formcast.batch.items': 2, 'formcast.batch.outcome': 'completed' });
        const combine = exporter.getFinishedSpans().filter((x) => parentOf(x) === idOf(finish));
        expect(combine.map((x) => x.name)).toContain('blob.put');
        const delivery = await spanOf(
          exporter,
          (x) => x.name === 'webhook.deliver' && x.attributes['formcast.event.type'] === 'render-batch.completed',
        );
        expect(parentOf(delivery)).toBe(idOf(finish));
      });

      it('makes a sweep the root of a trace of its own, with its counts', async () => {
        const result = await sweepOnce(s.runtime);
        expect(result).not.toBeNull();
        const sweep = await spanOf(exporter, (x) => x.name === 'housekeeping.sweep');
        expect(parentOf(sweep)).toBeUndefined();
        expect(sweep.attributes).toMatchObject({
          'formcast.sweep.expired': result!.expired,
          'formcast.sweep.orphans': result!.orphans,
        });
        // its queries are its children
        expect(exporter.getFinishedSpans().some((x) => parentOf(x) === idOf(sweep) && x.name === 'db.query')).toBe(
          true,
        );
      });

      it('puts no secret and no data value in any span', () => {
        const everything = JSON.stringify(
          exporter.getFinishedSpans().map((x) => ({ name: x.name, attributes: x.attributes, events: x.events })),
        );
        expect(everything).not.toContain(SECRET_VALUE);
        expect(everything).not.toContain(s.b.key);
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain(receiver.url);
        expect(everything).not.toContain(`127.0.0.1:${receiver.port}`);
      });
    },
  );
}
