// docs/api.md#errors lists them; their HTTP statuses and default messages live at the edge (@gateway/http-errors).
/** Every error code the gateway answers with. */
export const errorCodes = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'INVALID_JSON',
  'MISSING_FIELDS',
  'INVALID_FIELDS',
  'INVALID_AMOUNT',
  'UNSUPPORTED_PAYMENT_METHOD',
  'NO_FEE_RULE',
  'INVALID_STATUS',
  'REFUND_NOT_ALLOWED',
  'INSUFFICIENT_BALANCE',
  'NO_PAYOUT_ACCOUNT',
  'DEFENCE_NOT_SUPPORTED',
  'CUSTOMER_DOCUMENT_REQUIRED',
  'DUE_DATE_NOT_SUPPORTED',
  'AUTOMATIC_PIX_NOT_SUPPORTED',
  'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export function isErrorCode(code: string): code is ErrorCode {
  return (errorCodes as readonly string[]).includes(code);
}

/**
 * What any command may be answered besides its own refusals: the backbone's answers when the handler could not run
 * (a dependency down past the caller's deadline) or failed for a reason no retry fixes (a defect).
 */
export const backboneErrorCodes = [
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const satisfies readonly ErrorCode[];
