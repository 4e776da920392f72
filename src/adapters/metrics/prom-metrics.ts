import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metrics } from '../../ports/metrics.js';
import type { RenderEngine } from '../../ports/render-engine.js';

/** Prometheus metrics in a registry of our own (no global state, so tests can build several apps). */
export class PromMetrics implements Metrics {
  private readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'formcast_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'formcast_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly renders = new Counter({
    name: 'formcast_renders_total',
    help: 'Renders by outcome',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly renderSeconds = new Histogram({
    name: 'formcast_render_duration_seconds',
    help: 'Render generation time',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: 'formcast_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (success, http_error, network_error)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly webhookAttemptSeconds = new Histogram({
    name: 'formcast_webhook_attempt_duration_seconds',
    help: 'Webhook attempt time, connect to response',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'formcast_webhook_deliveries_total',
    help: 'Webhook deliveries that reached a final state (succeeded, failed)',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly webhookDisabled = new Counter({
    name: 'formcast_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled by the service after failing for days',
    registers: [this.registry],
  });

  private readonly admissionWaits = new Histogram({
    name: 'formcast_admission_wait_seconds',
    help: "Requests that waited for their account's share of the main process, by outcome (admitted, timed_out, left)",
    labelNames: ['outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [this.registry],
  });

  private readonly unpaidWorkHolds = new Histogram({
    name: 'formcast_unpaid_work_held_seconds',
    help: 'Requests held because their account used its budget of refused and preview requests, by outcome (admitted, rate_limited, left)',
    labelNames: ['outcome'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10],
    registers: [this.registry],
  });
  private readonly unpaidWorkUnits = new Counter({
    name: 'formcast_unpaid_work_total',
    help: "Units of unpaid work (refused and preview requests, one per 64 KiB of JSON body) charged to their account's budget",
    registers: [this.registry],
  });

  constructor(engine?: RenderEngine) {
    collectDefaultMetrics({ register: this.registry, prefix: 'formcast_' });
    if (engine?.stats) {
      const stats = () => engine.stats!();
      new Gauge({
        name: 'formcast_render_pool_queue_depth',
        help: 'Jobs waiting for a render worker',
        registers: [this.registry],
        collect() {
          this.set(stats().queued);
        },
      });
      new Gauge({
        name: 'formcast_render_pool_active',
        help: 'Jobs running in render workers',
        registers: [this.registry],
        collect() {
          this.set(stats().active);
        },
      });
      new Gauge({
        name: 'formcast_render_pool_size',
        help: 'Render workers',
        registers: [this.registry],
        collect() {
          this.set(stats().size);
        },
      });
    }
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }

  render(status: 'completed' | 'failed', seconds: number): void {
    this.renders.inc({ status });
    if (status === 'completed') this.renderSeconds.observe(seconds);
  }

  webhookAttempt(outcome: 'success' | 'http_error' | 'network_error', seconds: number): void {
    this.webhookAttempts.inc({ outcome });
    this.webhookAttemptSeconds.observe(seconds);
  }

  webhookDelivery(status: 'succeeded' | 'failed'): void {
    this.webhookDeliveries.inc({ status });
  }

  webhookEndpointDisabled(): void {
    this.webhookDisabled.inc();
  }

  admissionWait(outcome: 'admitted' | 'timed_out' | 'left', seconds: number): void {
    this.admissionWaits.observe({ outcome }, seconds);
  }

  unpaidWorkHeld(outcome: 'admitted' | 'rate_limited' | 'left', seconds: number): void {
    this.unpaidWorkHolds.observe({ outcome }, seconds);
  }

  unpaidWork(units: number): void {
    this.unpaidWorkUnits.inc(units);
  }

  async expose() {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
