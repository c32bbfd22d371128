import pino, { type Logger } from 'pino';

/** Quiet by default; TEST_LOG_LEVEL=debug shows what services log during a test. */
export function testLogger(name = 'test'): Logger {
  return pino({ name, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}
