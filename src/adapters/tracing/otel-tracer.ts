import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { RequestHeaders, RequestSpan, SpanAttributes, Tracer } from '../../ports/tracer.js';

export interface OtelTracerOptions {
  serviceName: string;
  /**
   * Where spans go. Default: the OTLP/HTTP exporter, configured by the standard OTEL_EXPORTER_OTLP_*
   * variables, batched. A given exporter (tests: InMemorySpanExporter) gets each span as it ends.
   */
  exporter?: SpanExporter;
  /** the last spans could not be sent at close (the collector is down or slow) */
  onCloseError?: (err: unknown) => void;
}

/** Longest close() waits for the last spans to go: the exporter's own retries would take 10 s. */
const CLOSE_FLUSH_MS = 3000;

/**
 * OpenTelemetry traces. The provider and the context manager belong to this instance, never registered
 * globally: two runtimes in one process (tests) keep their traces apart, and nothing else is patched.
 */
export class OtelTracer implements Tracer {
  readonly enabled = true;
  private readonly provider: BasicTracerProvider;
  private readonly contexts = new AsyncLocalStorageContextManager();
  private readonly tracer;
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly onCloseError: (err: unknown) => void;

  constructor(options: OtelTracerOptions) {
    this.onCloseError = options.onCloseError ?? (() => {});
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
      spanProcessors: [
        options.exporter ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(new OTLPTraceExporter()),
      ],
    });
    this.contexts.enable();
    this.tracer = this.provider.getTracer('formcast');
  }

  startRequest(name: string, attributes: SpanAttributes, headers: RequestHeaders): RequestSpan {
    // The caller's trace when it sent a traceparent, else a trace of its own: never whatever context the
    // socket's callbacks happen to carry.
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    const ctx = trace.setSpan(parent, span);
    let ended = false;
    return {
      activate: (next) => this.contexts.with(ctx, next),
      end: (final, error) => {
        if (ended) return; // a request may be both answered and aborted
        ended = true;
        span.setAttributes(final);
        if (error) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  async inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T> {
    const parent = this.contexts.active();
    // Only inside a request's trace: background loops (job runner, sweeper) would make a root span per poll.
    if (!trace.getSpan(parent)) return work();
    const span = this.tracer.startSpan(name, { attributes }, parent);
    try {
      return await this.contexts.with(trace.setSpan(parent, span), work);
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  async inBackground<T>(
    name: string,
    attributes: SpanAttributes,
    traceparent: string | null | undefined,
    work: (annotate: (attributes: SpanAttributes) => void) => Promise<T>,
  ): Promise<T> {
    // never the context the timer that runs us happens to carry: the enqueuing request's, or none
    const parent = traceparent
      ? this.propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter)
      : ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      name,
      { kind: traceparent ? SpanKind.CONSUMER : SpanKind.INTERNAL, attributes },
      parent,
    );
    try {
      return await this.contexts.with(trace.setSpan(parent, span), () => work((more) => span.setAttributes(more)));
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  detached<T>(work: () => T): T {
    return this.contexts.with(ROOT_CONTEXT, work);
  }

  traceparent(): string | undefined {
    const active = this.contexts.active();
    if (!trace.getSpan(active)) return undefined;
    const carrier: Record<string, string> = {};
    this.propagator.inject(active, carrier, defaultTextMapSetter);
    return carrier.traceparent;
  }

  record(name: string, attributes: SpanAttributes, startedAt: number): void {
    const parent = this.contexts.active();
    if (trace.getSpan(parent)) this.tracer.startSpan(name, { attributes, startTime: startedAt }, parent).end();
  }

  /** Sends what is buffered, within CLOSE_FLUSH_MS; a collector that is down never fails a shutdown. */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`traces not sent within ${CLOSE_FLUSH_MS} ms`)), CLOSE_FLUSH_MS);
    });
    try {
      await Promise.race([this.provider.shutdown(), late]);
    } catch (err) {
      this.onCloseError(err);
    } finally {
      clearTimeout(timer);
      this.contexts.disable();
    }
  }
}

/** The error's class name only: messages may quote the caller's data. */
function failed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
}
