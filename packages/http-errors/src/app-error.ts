import { errorCatalog, isErrorCode, type ErrorBody, type ErrorCode } from './codes';

/** A failure with a public error code; anything thrown that is not an AppError becomes INTERNAL_ERROR. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = errorCatalog[code].message,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = errorCatalog[code].status;
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }

  /** From a command reply's error; an unknown code from a downstream service is an internal error. */
  static fromReply(error: { code: string; message: string }): AppError {
    return isErrorCode(error.code) ? new AppError(error.code, error.message) : new AppError('INTERNAL_ERROR');
  }
}

export function missingFields(names: string[]): AppError {
  return new AppError('MISSING_FIELDS', `Campos obrigatórios ausentes: ${names.join(', ')}.`);
}

export function invalidFields(names: string[]): AppError {
  return new AppError('INVALID_FIELDS', `Campos inválidos: ${names.join(', ')}.`);
}
