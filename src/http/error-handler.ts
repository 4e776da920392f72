import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  DataValidationError,
  ERROR_STATUS,
  EngineBusyError,
  EngineCrashedError,
  type ErrorCode,
} from '../errors.js';
import { FieldEditError, PdfEngineError } from '../pdf/types.js';
import { isDatabaseUnavailable } from '../adapters/db/unavailable.js';
import { BlobStoreUnavailableError } from '../ports/blob-store.js';
import { AdmissionTimeoutError, UnpaidWorkLimitError } from '../ports/request-admission.js';
import { ClientGoneError } from './admission.js';

/** nginx's status for a request its client closed before the answer (not an HTTP status of the RFCs). */
const CLIENT_CLOSED_REQUEST = 499;

declare module 'fastify' {
  interface FastifyRequest {
    /** The code of the error this request was answered with, if any (http/admission.ts reads it). */
    errorCode: ErrorCode | null;
  }
}

/** How long a client should wait before retrying when the database is unreachable. */
const DB_RETRY_AFTER_SECONDS = 5;

// The one place where exceptions become HTTP answers. Unknown errors become INTERNAL_ERROR: the client
// sees the request id, never err.message, a stack or a path; the log gets everything.

interface AjvError {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
  data?: unknown;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return value.length > 60 ? `string of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return String(value);
}

function fromAjv(errors: AjvError[], context: string | undefined): AppError {
  const e = errors[0] ?? {};
  const base = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const params = e.params ?? {};
  let field = base;
  let expected = e.message ?? 'a valid value';
  let received = describe(e.data);
  switch (e.keyword) {
    case 'required':
      field = [base, String(params.missingProperty)].filter(Boolean).join('.');
      expected = 'a value';
      received = 'nothing';
      break;
    case 'additionalProperties':
      field = [base, String(params.additionalProperty)].filter(Boolean).join('.');
      expected = 'no such property';
      received = 'unknown property';
      break;
    case 'type':
      expected = String(params.type);
      break;
    case 'minimum':
    case 'maximum':
      expected = `${params.comparison} ${params.limit}`;
      break;
    case 'minLength':
      expected = `at least ${params.limit} characters`;
      break;
    case 'maxLength':
      expected = `at most ${params.limit} characters`;
      break;
    case 'enum':
      expected = `one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
  }
  if (!field) field = context ?? 'body';
  return new AppError(
    'VALIDATION_ERROR',
    `Invalid ${context === 'querystring' ? 'query parameter' : 'value'} "${field}": expected ${expected}, received ${received}`,
    {
      field,
      expected,
      received,
    },
  );
}

/**
 * Refused field edits, as PATCH fields reports several problems: the first in field/expected/received,
 * every one in `errors` ({ field, message }; field is the name as sent, or "edit <n>" when it has none).
 */
function fieldEditError(err: FieldEditError): AppError {
  const problems = err.problems.length > 0 ? err.problems : [{ field: 'edits', message: 'the edits were refused' }];
  const [first] = problems;
  const field = first.field || 'edits';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems: see details.errors)` : '';
  return new AppError('VALIDATION_ERROR', `Field "${field}": ${first.message}${more}`, {
    field,
    expected: 'an edit this form can take',
    received: first.message,
    errors: problems.map((p) => ({
      field: p.field || 'edits',
      expected: 'an edit this form can take',
      received: p.message,
      message: p.message,
    })),
  });
}

/** How long a client is asked to wait after the file store did not answer. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Map any thrown value to an AppError; undefined for errors we did not expect. */
function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (err instanceof DataValidationError) {
    return new AppError('VALIDATION_ERROR', err.message, { ...err.details });
  }
  if (err instanceof FieldEditError) return fieldEditError(err);
  if (err instanceof EngineBusyError) {
    return new AppError('SERVICE_UNAVAILABLE', 'All render workers are busy; retry shortly', undefined, {
      'Retry-After': String(err.retryAfterSeconds),
    });
  }
  if (err instanceof EngineCrashedError) {
    return new AppError('SERVICE_UNAVAILABLE', 'The render worker stopped unexpectedly; retry shortly', undefined, {
      'Retry-After': String(err.retryAfterSeconds),
    });
  }
  if (err instanceof AdmissionTimeoutError) {
    // contract: "the service is saturated"
    return new AppError('SERVICE_UNAVAILABLE', 'The server is saturated; retry shortly', undefined, {
      'Retry-After': String(err.retryAfterSeconds),
    });
  }
  if (err instanceof UnpaidWorkLimitError) {
    // the account's own rate, not the server's state
    return new AppError(
      'RATE_LIMITED',
      `This account sent more refused requests and previews than the server allows; retry in ${err.retryAfterSeconds} s`,
      undefined,
      { 'Retry-After': String(err.retryAfterSeconds) },
    );
  }
  if (err instanceof BlobStoreUnavailableError) {
    return new AppError('SERVICE_UNAVAILABLE', 'The file store is unavailable; retry shortly', undefined, {
      'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS),
    });
  }
  if (isDatabaseUnavailable(err)) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      'A storage service (database or file store) is unavailable; retry shortly',
      undefined,
      {
        'Retry-After': String(DB_RETRY_AFTER_SECONDS),
      },
    );
  }
  if (err instanceof PdfEngineError) {
    if (err.code === 'INVALID_PDF' || err.code === 'PDF_LIMIT') return new AppError('INVALID_PDF', err.message);
    return new AppError('RENDER_FAILED', err.message);
  }
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) return fromAjv(fe.validation, fe.validationContext);
  if (fe && typeof fe.code === 'string') {
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return new AppError('BAD_REQUEST', 'The request body is not valid JSON');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return new AppError('BAD_REQUEST', 'The request body is empty but Content-Type is application/json');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return new AppError('BAD_REQUEST', `Unsupported Content-Type; this route accepts ${'application/json'}`);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return new AppError(
          'PAYLOAD_TOO_LARGE',
          'The request body is larger than this server accepts (MAX_JSON_BODY_BYTES)',
        );
      case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
        return new AppError('BAD_REQUEST', 'Expected Content-Type multipart/form-data');
      case 'FST_REQ_FILE_TOO_LARGE':
        return new AppError('FILE_TOO_LARGE', 'The uploaded file exceeds the size limit of your plan');
      case 'FST_PARTS_LIMIT':
      case 'FST_FILES_LIMIT':
      case 'FST_FIELDS_LIMIT':
        return new AppError('BAD_REQUEST', 'Too many parts in the multipart body');
    }
    // Fastify's own client errors (4xx) keep their meaning as BAD_REQUEST.
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
      return new AppError('BAD_REQUEST', 'The request could not be read');
  }
  if (err instanceof SyntaxError && /JSON/.test(err.message))
    return new AppError('BAD_REQUEST', 'The request body is not valid JSON');
  return undefined;
}

function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  if (err.code === 'UNAUTHORIZED') reply.header('WWW-Authenticate', 'Bearer');
  reply.request.errorCode = err.code;
  const body: { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } = {
    error: { code: err.code, message: err.message },
  };
  if (err.details) body.error.details = err.details;
  return reply.status(ERROR_STATUS[err.code]).type('application/json').send(body);
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.decorateRequest('errorCode', null);
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ClientGoneError) {
      // Not a fault: the client is gone, so nothing is sent (no onResponse, no access log line); the
      // metrics count it as 499 when it aborts (app.ts), and this line says where it was.
      request.log.info('client left while its request waited for its turn');
      return reply.status(CLIENT_CLOSED_REQUEST).send();
    }
    const mapped = toAppError(err);
    if (mapped) {
      // Backpressure (503: busy workers, database away) is the system working as designed: info
      // without a stack. Other 5xx are faults worth an error with everything.
      if (mapped.code === 'SERVICE_UNAVAILABLE')
        request.log.info({ code: mapped.code, reason: mapped.message }, 'request shed');
      else if (mapped.status >= 500) request.log.error({ err }, 'request failed');
      return sendError(reply, mapped);
    }
    request.log.error({ err }, 'unexpected error');
    return sendError(
      reply,
      new AppError('INTERNAL_ERROR', `An unexpected error occurred; quote request id ${request.id} when reporting it`),
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
