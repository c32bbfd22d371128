import { errorCodes, type ErrorCode } from '@gateway/contracts/src/errors';

// The contract's error codes, bundled into the build (the contracts' errors module imports nothing).
export { errorCodes, type ErrorCode };

export interface GatewayErrorDetails {
  status: number;
  /** The gateway's `x-request-id`, for support. */
  requestId: string | null;
  /** Seconds the gateway asked to wait (`Retry-After` of 429 and 503). */
  retryAfterSeconds: number | null;
  /** The key the call was sent with (POST). */
  idempotencyKey: string | null;
}

/**
 * The gateway answered with an error: `code` is the contract's code (`NOT_FOUND`, `INVALID_AMOUNT`...), `message` its
 * Portuguese text. A code newer than this SDK still arrives as the string the gateway sent.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly requestId: string | null;
  readonly retryAfterSeconds: number | null;
  readonly idempotencyKey: string | null;

  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
    details: GatewayErrorDetails,
  ) {
    super(message);
    this.status = details.status;
    this.requestId = details.requestId;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.idempotencyKey = details.idempotencyKey;
  }
}

/** No answer from the gateway (refused, reset, timed out) after every retry; `cause` holds the last failure. */
export class GatewayConnectionError extends Error {
  override readonly name = 'GatewayConnectionError';

  constructor(
    message: string,
    readonly idempotencyKey: string | null,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** Narrows an unknown error to a gateway error, of one code when given: `if (isGatewayError(err, 'NOT_FOUND'))`. */
export function isGatewayError(error: unknown): error is GatewayError;
export function isGatewayError<C extends ErrorCode>(
  error: unknown,
  code: C,
): error is GatewayError & { code: C };
export function isGatewayError(error: unknown, code?: ErrorCode): boolean {
  return error instanceof GatewayError && (code === undefined || error.code === code);
}
