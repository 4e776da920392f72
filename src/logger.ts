import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Structured JSON logs; secrets (keys, signatures) are redacted wherever they appear. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'apiKey', 'key', 'secret', 'signature'],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ id: req.id, method: req.method, url: req.url.replace(/signature=[^&]+/, 'signature=[redacted]') }),
    },
  });
}
