import type { ErrorCode } from './types.js';

/**
 * Codes the client itself gives: NETWORK_ERROR (no answer came), TIMEOUT (a wait gave up),
 * UNEXPECTED_RESPONSE (an answer that is not the API's, e.g. from a proxy), INVALID_WEBHOOK_SIGNATURE
 * (verifyWebhook refused a delivery).
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'UNEXPECTED_RESPONSE' | 'INVALID_WEBHOOK_SIGNATURE';

/**
 * An error answer of the API, with the envelope's `code`, `message` and `details`. `code` is one of the
 * documented ErrorCode values, or a newer code this client version does not know yet.
 */
export class FormcastError extends Error {
  override readonly name = 'FormcastError';

  constructor(
    message: string,
    /** HTTP status; 0 when no answer came (NETWORK_ERROR, TIMEOUT) */
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode | (string & {}),
    /** VALIDATION_ERROR: field, expected, received; quotas: used, limit */
    readonly details: Record<string, unknown> | undefined,
    /** X-Request-Id of the answer: quote it when reporting a problem */
    readonly requestId: string | undefined,
    /** Retry-After in seconds, when the answer gave one */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }

  /** The server could not be reached (or the connection broke): `code` NETWORK_ERROR, `status` 0. */
  static network(message: string, cause: unknown): FormcastError {
    const error = new FormcastError(message, 0, 'NETWORK_ERROR', undefined, undefined, undefined);
    Object.defineProperty(error, 'cause', { value: cause, enumerable: false });
    return error;
  }

  /** Build the error from a non-2xx answer whose body was already read (`body`: parsed JSON or text). */
  static from(response: Response, body: unknown): FormcastError {
    const envelope = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (envelope && typeof envelope.code === 'string') {
      const details =
        envelope.details && typeof envelope.details === 'object'
          ? (envelope.details as Record<string, unknown>)
          : undefined;
      const message = typeof envelope.message === 'string' ? envelope.message : envelope.code;
      return new FormcastError(message, response.status, envelope.code, details, requestId, retryAfter);
    }
    // Not the API's envelope: a proxy or load balancer answered.
    return new FormcastError(
      `Unexpected HTTP ${response.status} answer (not a formcast error envelope)`,
      response.status,
      'UNEXPECTED_RESPONSE',
      undefined,
      requestId,
      retryAfter,
    );
  }
}

/** Retry-After as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
