// The error catalogue: every code the API can answer, and the only place that knows HTTP statuses.
// Use cases throw AppError; the error handler (src/http/error-handler.ts) renders the envelope.

export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  BAD_REQUEST: 400,
  VALIDATION_ERROR: 422,
  NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  RENDER_NOT_FOUND: 404,
  BATCH_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  TEMPLATE_FROZEN: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  INVALID_PDF: 422,
  FILE_TOO_LARGE: 413,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  TEMPLATE_LIMIT_REACHED: 403,
  API_KEY_LIMIT_REACHED: 403,
  RENDER_LIMIT_REACHED: 429,
  RATE_LIMITED: 429,
  RENDER_FAILED: 422,
  DOWNLOAD_FORBIDDEN: 403,
  WEBHOOKS_NOT_ENABLED: 403,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 403,
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  SIGNING_CERTIFICATE_NOT_FOUND: 404,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ValidationDetails {
  field: string;
  expected: string;
  received: string;
  /** every problem, when one answer refuses several fields (the first is field/expected/received) */
  errors?: { field: string; message: string; value?: string }[];
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** extra response headers, e.g. Retry-After */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export function validationError(details: ValidationDetails, message?: string): AppError {
  return new AppError(
    'VALIDATION_ERROR',
    message ?? `Invalid value for "${details.field}": expected ${details.expected}, received ${details.received}`,
    { ...details },
  );
}

/** Text holding U+0000, refused wherever it arrives (JSON, path, query or multipart). */
export function nulCharacterError(field: string): AppError {
  return validationError({ field, expected: 'text without NUL (U+0000) characters', received: 'a NUL character' });
}

export const notFound = {
  template: (id: string) => new AppError('TEMPLATE_NOT_FOUND', `Template "${id}" was not found`),
  render: (id: string) => new AppError('RENDER_NOT_FOUND', `Render "${id}" was not found`),
  batch: (id: string) => new AppError('BATCH_NOT_FOUND', `Render batch "${id}" was not found`),
  apiKey: (id: string) => new AppError('API_KEY_NOT_FOUND', `API key "${id}" was not found`),
  webhookEndpoint: (id: string) => new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `Webhook endpoint "${id}" was not found`),
  webhookDelivery: (id: string) => new AppError('WEBHOOK_DELIVERY_NOT_FOUND', `Webhook delivery "${id}" was not found`),
  signingCertificate: (id: string) =>
    new AppError('SIGNING_CERTIFICATE_NOT_FOUND', `Signing certificate "${id}" was not found`),
};

/**
 * Render data (or render options) the service cannot use, found by the value validation of
 * modules/render-data/. The error handler answers 422 VALIDATION_ERROR with `details` as given.
 */
export class DataValidationError extends Error {
  readonly code = 'VALIDATION_ERROR' as const;

  constructor(
    /** `field`: the data key as sent (or "data", "options.locale", "options.timezone"). */
    readonly details: ValidationDetails,
    message: string,
  ) {
    super(message);
    this.name = 'DataValidationError';
  }
}

/**
 * An operator's input to an account command (CLI `accounts`) the service cannot use: a bad name, an unknown
 * plan or account. The CLI prints its message; no HTTP route raises it.
 */
export class AccountInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountInputError';
  }
}

/** The render engine is at capacity (all workers busy and the queue full). The HTTP layer answers 503. */
export class EngineBusyError extends Error {
  constructor(readonly retryAfterSeconds = 1) {
    super('the render engine is busy; try again shortly');
    this.name = 'EngineBusyError';
  }
}

/**
 * The render worker running a job died twice, killed by something other than our own time or memory
 * budget (the kernel's OOM killer, an operator's kill -9, a crash). A server fault, not the input's:
 * the HTTP layer answers 503 with Retry-After.
 */
export class EngineCrashedError extends Error {
  constructor(readonly retryAfterSeconds = 5) {
    super('the render worker stopped unexpectedly twice; try again shortly');
    this.name = 'EngineCrashedError';
  }
}
