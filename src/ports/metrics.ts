/** What the service reports about itself; the Prometheus adapter exposes it at /metrics. */
export interface Metrics {
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  render(status: 'completed' | 'failed', seconds: number): void;
  /** one webhook attempt: `success` (2xx), `http_error` (another status) or `network_error` (no answer) */
  webhookAttempt(outcome: 'success' | 'http_error' | 'network_error', seconds: number): void;
  /** a webhook delivery reached a final state */
  webhookDelivery(status: 'succeeded' | 'failed'): void;
  /** an endpoint disabled by the service after failing for days */
  webhookEndpointDisabled(): void;
  /**
   * a request that waited for its account's share of the main process (http/admission.ts): `admitted`,
   * `timed_out` (answered 503) or `left` (the client went first), after `seconds`
   */
  admissionWait(outcome: 'admitted' | 'timed_out' | 'left', seconds: number): void;
  /**
   * a request held because its account used its budget of unpaid work (refusals, previews): `admitted`,
   * `rate_limited` (answered 429) or `left` (the client went first), after `seconds`
   */
  unpaidWorkHeld(outcome: 'admitted' | 'rate_limited' | 'left', seconds: number): void;
  /** units of unpaid work charged to accounts' budgets */
  unpaidWork(units: number): void;
  /** Prometheus text exposition */
  expose(): Promise<{ contentType: string; body: string }>;
}
