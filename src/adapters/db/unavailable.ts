import { NETWORK_ERROR_CODES } from '../../lib/network-errors.js';

// Which database errors mean "the database cannot be reached right now" (a server fault the client
// should retry: 503 + Retry-After), as opposed to a bug or bad input. PostgreSQL: the server shut the
// connection (57P01 admin shutdown, e.g. pg_terminate_backend; 57P02/57P03 crash or start-up), a
// connection exception (class 08), or a socket that failed; SQLite: a locked or full database.
const CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300', // admin shutdown, crash shutdown, cannot connect now, too many connections
  ...NETWORK_ERROR_CODES,
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'ENOSPC',
]);

const MESSAGES =
  /Connection terminated|Client has encountered a connection error|not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly|connection is closed/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_IOERR')))
    return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && MESSAGES.test(message);
}
