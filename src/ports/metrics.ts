/** What the service reports about itself; the Prometheus adapter exposes it at /metrics. */
export interface Metrics {
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  render(status: 'completed' | 'failed', seconds: number): void;
  /** Prometheus text exposition */
  expose(): Promise<{ contentType: string; body: string }>;
}
