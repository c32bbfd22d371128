import pino, { type Logger } from 'pino';

/** Quiet by default; TEST_LOG_LEVEL=debug shows what services log during a test. */
export function testLogger(name = 'test'): Logger {
  return pino({ name, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** A logger that keeps every line (info and up) it is given, for a test that watches what a task says it did. */
export function recordingLogger(name = 'test'): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { name, level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}
