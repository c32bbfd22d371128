/**
 * Headers the backbone keeps on a message across retries. Header names without `x-` are routable by a headers
 * exchange (RabbitMQ ignores `x-` headers when matching).
 */
export const RETRY_QUEUE = 'retry-queue';
export const RETRY_FAILURES = 'x-retry-failures';
export const FIRST_FAILED_AT = 'x-first-failed-at';
export const LAST_FAILURE = 'x-last-failure';
export const PARKED_HEADERS = ['x-parked-reason', 'x-parked-at', 'x-parked-from'];

/**
 * A message's headers without those the broker sets on delivery and dead-lettering: a copy starts a new delivery
 * count (the `x-delivery-limit` backstop counts crashes of one copy, not retries), and its death history stays short.
 */
export function withoutBrokerHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => name !== 'x-delivery-count' && !/^x-(first-|last-)?death/.test(name),
    ),
  );
}
