import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';
import { redactUrl } from './lib/redact-url.js';

/** Structured JSON logs; secrets (keys, signatures) are redacted wherever they appear. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      // `*.headers`: libraries log the request headers under their own keys too (at trace,
      // @fastify/multipart logs them as busboyOptions.headers).
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.headers.authorization',
        '*.*.headers.authorization',
        'req.headers.cookie',
        'headers.cookie',
        '*.headers.cookie',
        'apiKey',
        'key',
        'secret',
        'signature',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
      }),
    },
  };
  // destination: tests capture the real logger's output (redaction included) instead of stdout
  return destination ? pino(options, destination) : pino(options);
}
