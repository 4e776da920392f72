/**
 * Sends one signed webhook request. Guarantees: one POST, no redirects followed, a bounded wait
 * (`timeoutMs` for everything) and a bounded read of the answer, and never a connection to an address
 * the target policy forbids (checked on the address actually dialled, so a DNS answer that changed
 * since the URL was saved cannot reach loopback, private or metadata addresses).
 */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResponse {
  /** HTTP status of the answer; null when there was none (refused, timeout, forbidden address...) */
  statusCode: number | null;
  /** why the attempt failed without an answer, or why the answer does not count (a redirect) */
  error: string | null;
  durationMs: number;
  /** the first bytes of the answer, for the delivery log */
  responseBody: string;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /** Why `url` may not be a webhook target (scheme, form, resolved addresses), or null when it may. */
  checkUrl(url: string): Promise<string | null>;
}
