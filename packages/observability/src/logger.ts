import pino, { type Logger } from 'pino';
import { activeTraceIds } from './tracing';

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
  // A business's own PSP credentials (the operator's psp-account body and the command carrying it).
  'client_secret',
  '*.client_secret',
  'certificate_p12',
  '*.certificate_p12',
  'certificate_passphrase',
  '*.certificate_passphrase',
];

/**
 * The one stdout writer of every logger in the process, synchronous: lines come out in the order they were logged,
 * and a process that exits right after its last line (a service's stop) loses or reorders none of them.
 */
const stdout = pino.destination({ dest: 1, sync: true });

/**
 * A JSON logger named after its component; level from LOG_LEVEL is passed in by each service's config. Every line
 * carries the trace and span ids of the active context (exported or only propagated), to find its trace by.
 */
export function createLogger(name: string, level: string = 'info'): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin: activeTraceIds,
    },
    stdout,
  );
}
