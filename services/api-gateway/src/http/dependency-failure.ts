import { failureKind } from '@gateway/messaging';

/**
 * Connection losses that pg, pg-pool and ioredis report without a code, or with one that also means other things,
 * so the backbone's classifier cannot tell them from a bug: the database or Redis went away, refused or did not
 * answer within the client's timeouts.
 */
const CODELESS_CONNECTION_FAILURES = [
  /^Connection terminated/, // pg: the server closed the socket, or the connect timed out (pg-pool)
  /^timeout exceeded when trying to connect$/, // pg-pool: no connection free within connectionTimeoutMillis
  /^Client has encountered a connection error/, // pg: a client whose socket already failed
  /^Query read timeout$/, // pg: query_timeout
  /is not currently accepting connections$/, // PostgreSQL 55000: the database closed to connections for now
  /^Stream isn't writeable/, // ioredis: disconnected, with the offline queue off
  /^Connection is closed\.$/, // ioredis
  /^Command timed out$/, // ioredis: commandTimeout
  /^Reached the max retries per request limit/, // ioredis: maxRetriesPerRequest
];

function messagesOf(err: unknown): string[] {
  const messages: string[] = [];
  for (let current: unknown = err, depth = 0; current && depth < 4; depth += 1) {
    if (current instanceof Error) messages.push(current.message);
    const wrapper = current as { driverError?: unknown; cause?: unknown };
    current = wrapper.driverError ?? wrapper.cause;
  }
  return messages;
}

/**
 * Whether a failure is a dependency's passing fault (PostgreSQL, Redis or RabbitMQ down, restarting, saturated or
 * too slow): the backbone's `failureKind`, plus the connection losses its drivers report without a code. The
 * gateway answers those 503 with Retry-After; anything else unexpected is a defect (500).
 */
export function isDependencyFailure(err: unknown): boolean {
  if (failureKind(err) === 'transient') return true;
  return messagesOf(err).some((message) =>
    CODELESS_CONNECTION_FAILURES.some((pattern) => pattern.test(message)),
  );
}
