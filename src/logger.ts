import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';
import { redactUrl } from './lib/redact-url.js';

/**
 * Structured JSON logs; secrets (keys, signatures) are redacted wherever they appear. On a terminal
 * they are printed for people (pino-pretty, in-process: no transport thread); anywhere else (files,
 * containers, log shippers) they stay one JSON object per line.
 */
export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  tty = Boolean(process.stdout.isTTY),
): Logger {
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
  if (destination) return pino(options, destination);
  if (!tty) return pino(options);
  // required only for a terminal: a server logging JSON never loads it (~4 MB RSS)
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pino(options, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}
