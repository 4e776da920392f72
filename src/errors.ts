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

/** What each code means, what its `details` hold and what a caller does about it (served at /docs). */
export interface ErrorDoc {
  meaning: string;
  details: string;
  action: string;
}

const NONE = 'none';
const FIELD_DETAILS =
  '`field`, `expected`, `received` (strings) for the first problem; `errors[]` (each `field`, `expected`, `received`, `message`) for every one';

export const ERROR_DOCS: Record<ErrorCode, ErrorDoc> = {
  UNAUTHORIZED: {
    meaning: 'The API key is missing, malformed, unknown or revoked (`WWW-Authenticate: Bearer`)',
    details: NONE,
    action: 'Send `Authorization: Bearer <key>` with an active key',
  },
  BAD_REQUEST: {
    meaning: 'The request cannot be read: body not JSON, wrong Content-Type, multipart without `file`',
    details: NONE,
    action: 'Fix the request format',
  },
  VALIDATION_ERROR: {
    meaning:
      'A value is invalid: render data of the wrong type, an unknown or missing field in strict mode, a bad parameter',
    details: FIELD_DETAILS,
    action: 'Correct every listed field and send again',
  },
  NOT_FOUND: { meaning: 'No such route', details: NONE, action: 'Check the method and path (they start with /v1)' },
  TEMPLATE_NOT_FOUND: {
    meaning: 'The template does not exist in this account (or was deleted)',
    details: NONE,
    action: 'Check the id; list templates with GET /v1/templates',
  },
  RENDER_NOT_FOUND: {
    meaning: 'The render does not exist in this account, was deleted or expired',
    details: NONE,
    action: 'Render again if the file is needed',
  },
  SIGNING_CERTIFICATE_NOT_FOUND: {
    meaning:
      'The signing certificate named by `options.sign` (or by the route) does not exist in this account or was deleted',
    details: NONE,
    action: 'Upload one with POST /v1/signing-certificates, or list them with GET /v1/signing-certificates',
  },
  BATCH_NOT_FOUND: {
    meaning: 'The render batch does not exist in this account',
    details: NONE,
    action: 'Check the id',
  },
  API_KEY_NOT_FOUND: { meaning: 'The API key does not exist in this account', details: NONE, action: 'Check the id' },
  METHOD_NOT_ALLOWED: {
    meaning: 'The path exists but not with this method',
    details: NONE,
    action: 'Use a method the `Allow` header lists',
  },
  TEMPLATE_FROZEN: {
    meaning: 'The template is frozen: its name, description, settings, file and deletion are refused',
    details: NONE,
    action: 'Unfreeze it first with PATCH /v1/templates/{id} `{"isFrozen": false}`',
  },
  CONFLICT: {
    meaning:
      "The resource changed under the request, or is in a state that forbids it (e.g. a pending render, or the operator's signing certificate, which an account cannot delete)",
    details: NONE,
    action: 'Read the resource again and retry',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    meaning: 'A request with this Idempotency-Key is still running',
    details: NONE,
    action: 'Wait and retry with the same key: the first answer is then replayed',
  },
  IDEMPOTENCY_KEY_REUSED: {
    meaning: 'This Idempotency-Key was used with another body or route',
    details: NONE,
    action: 'Use a new key for a new request',
  },
  INVALID_PDF: {
    meaning: 'The file is not a readable PDF, or has no AcroForm with a fillable field',
    details: NONE,
    action: 'Upload a PDF form, or ask for field detection (`detectFields=true`)',
  },
  FILE_TOO_LARGE: {
    meaning: "The uploaded file exceeds the plan's size limit",
    details: NONE,
    action: 'Upload a smaller file or move to a larger plan',
  },
  PAYLOAD_TOO_LARGE: {
    meaning: 'The JSON body exceeds the server limit (MAX_JSON_BODY_BYTES)',
    details: NONE,
    action: 'Send less data per request (a batch splits large work)',
  },
  REQUEST_TIMEOUT: {
    meaning: 'The body arrived too slowly or not at all',
    details: NONE,
    action: 'Retry on a better connection',
  },
  TEMPLATE_LIMIT_REACHED: {
    meaning: "The plan's template quota is held",
    details: '`used`, `limit` (integers) when known',
    action: 'Delete templates or move to a larger plan',
  },
  API_KEY_LIMIT_REACHED: {
    meaning: "The plan's API key quota is held (active keys)",
    details: NONE,
    action: 'Revoke a key or move to a larger plan',
  },
  RENDER_LIMIT_REACHED: {
    meaning: "The month's render quota is used (the message gives used/limit)",
    details: '`used`, `limit` (integers); a batch adds `requested`',
    action: 'Wait for the next month (`Retry-After`: seconds to it, UTC) or move to a larger plan',
  },
  RATE_LIMITED: {
    meaning:
      'Too many requests with this key this minute, failed authentications from this address, or refused requests and previews from this account',
    details: NONE,
    action: 'Retry after `Retry-After` seconds; `RateLimit-*` headers give the budget',
  },
  RENDER_FAILED: {
    meaning: 'Generation failed because of the template (e.g. a corrupted file); a failed render is kept',
    details: '`renderId` (string) of the failed render',
    action: 'Replace the template file; retrying the same request fails the same way',
  },
  DOWNLOAD_FORBIDDEN: {
    meaning: 'The download link is tampered with, foreign or expired',
    details: NONE,
    action: 'Get a fresh link with GET /v1/renders/{id}',
  },
  WEBHOOKS_NOT_ENABLED: {
    meaning: "The plan's `webhooksEnabled` is false",
    details: NONE,
    action: 'Move to a plan with webhooks',
  },
  WEBHOOK_ENDPOINT_LIMIT_REACHED: {
    meaning: 'The account holds as many webhook endpoints as allowed',
    details: NONE,
    action: 'Delete an endpoint first',
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: {
    meaning: 'The webhook endpoint does not exist in this account',
    details: NONE,
    action: 'Check the id',
  },
  WEBHOOK_DELIVERY_NOT_FOUND: {
    meaning: 'The webhook delivery does not exist in this account',
    details: NONE,
    action: 'Check the id',
  },
  SERVICE_UNAVAILABLE: {
    meaning: 'The render workers are busy or a storage service is away; never caused by the input',
    details: NONE,
    action: 'Retry after `Retry-After` seconds (with the same Idempotency-Key)',
  },
  INTERNAL_ERROR: {
    meaning: 'An unexpected fault; the message quotes the request id (also in `X-Request-Id`)',
    details: NONE,
    action: 'Retry later; report the request id if it persists',
  },
};

/** The catalogue as a Markdown table, for the API document's description (the reference UI at /docs). */
export function errorCatalogueMarkdown(): string {
  const rows = (Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => {
    const d = ERROR_DOCS[code];
    return `| \`${code}\` | ${ERROR_STATUS[code]} | ${d.meaning} | ${d.details} | ${d.action} |`;
  });
  return ['| code | HTTP | meaning | `details` | what to do |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

export interface ValidationDetails {
  field: string;
  expected: string;
  received: string;
  /** every problem, when one answer refuses several fields (the first is also field/expected/received) */
  errors?: ValidationProblem[];
}

/** One problem of a VALIDATION_ERROR that reports several at once (`details.errors[]`). */
export interface ValidationProblem {
  field: string;
  expected: string;
  received: string;
  message: string;
  /** the value refused, when it helps (a form script's check) */
  value?: string;
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
