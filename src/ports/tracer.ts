/** Values a span may carry: ids, names, counts and statuses only, never API keys or render data. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One HTTP request's span (see http/tracing.ts). */
export interface RequestSpan {
  /** Runs `next` with this span current, so the spans started in what it runs are its children. */
  activate(next: () => void): void;
  /** `error`: the request failed on our side (a 5xx). */
  end(attributes: SpanAttributes, error: boolean): void;
}

/**
 * Traces of what the service does. The no-op adapter is the default (tracing off); the OpenTelemetry
 * one (adapters/tracing/otel-tracer.ts) is chosen by OTEL_ENABLED=true.
 */
export interface Tracer {
  /** false for the no-op adapter: callers then skip their wrappers entirely */
  readonly enabled: boolean;
  /** `headers`: the request's, whose W3C `traceparent` (when valid) makes the span part of the caller's trace. */
  startRequest(name: string, attributes: SpanAttributes, headers: RequestHeaders): RequestSpan;
  /** `work` inside a child span of the current one; a rejection marks the span as an error. */
  inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
  /**
   * `work` in a span of its own, for background work (a job, a delivery, a sweep): a child of
   * `traceparent` (the W3C value carried from the request that enqueued it) when given, else the root of
   * a trace. The spans `work` makes are its children; `annotate` adds attributes as they become known.
   */
  inBackground<T>(
    name: string,
    attributes: SpanAttributes,
    traceparent: string | null | undefined,
    work: (annotate: (attributes: SpanAttributes) => void) => Promise<T>,
  ): Promise<T>;
  /**
   * `work` outside any span: for a loop woken from inside a request (the job runner), whose timers would
   * otherwise carry that request's context into every later poll.
   */
  detached<T>(work: () => T): T;
  /** The current span as a W3C traceparent, to store with work enqueued for later; undefined without one. */
  traceparent(): string | undefined;
  /** A span, child of the current one, for work that began at `startedAt` (a performance.now()) and has just ended. */
  record(name: string, attributes: SpanAttributes, startedAt: number): void;
  /** Sends what is still buffered. */
  close(): Promise<void>;
}

const NOOP_SPAN: RequestSpan = {
  activate: (next) => next(),
  end: () => {},
};

/** Tracing off: nothing is created, `inSpan` is a plain call. */
export const noopTracer: Tracer = {
  enabled: false,
  startRequest: () => NOOP_SPAN,
  inSpan: (_name, _attributes, work) => work(),
  inBackground: (_name, _attributes, _traceparent, work) => work(() => {}),
  traceparent: () => undefined,
  detached: (work) => work(),
  record: () => {},
  close: async () => {},
};
