import pino, { type Logger } from 'pino';

export type { Logger };

/** Keys whose values never reach a log line, wherever they appear in the logged object. */
const REDACTED_PATHS = [
  'secret',
  '*.secret',
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'password',
  '*.password',
];

/** A JSON logger named after its component; level from LOG_LEVEL is passed in by each service's config. */
export function createLogger(name: string, level: string = 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
