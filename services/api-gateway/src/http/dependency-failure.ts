import { failureKind } from '@gateway/messaging';

/**
 * Whether a failure is a dependency's passing fault (PostgreSQL, Redis or RabbitMQ down, restarting, saturated or
 * too slow), as the backbone's one classifier sees it. The gateway answers those 503 with Retry-After; anything else
 * unexpected is a defect (500).
 */
export function isDependencyFailure(err: unknown): boolean {
  return failureKind(err) === 'transient';
}
